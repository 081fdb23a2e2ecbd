import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorCodec, SyncService } from '@calsync/domain';
import { ManualClock } from '@calsync/testkit';
import { PostgresSyncStore } from './postgres-sync-store.js';
import { announceDatabaseKinds, createTestUser, openTestDatabase, type TestDatabase, versionOf } from '../test-support/index.js';

// Events reach their user through their calendar and have no users key of their own (migration
// 0014). Deleting a user row must still take every row of that user with it, and nothing of
// another user's: the trigger removes the user's reminders and events, the remaining keys cascade.


describe.each(announceDatabaseKinds('user-deletion.pg.test.ts'))('deleting a user row (%s)', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase(kind);
  });
  afterAll(async () => {
    await database?.close();
  });

  /** A user holding every record type, references between them, a conflict and receipts. */
  async function filledUser(sync: SyncService): Promise<number> {
    const user = await createTestUser(database);
    const created = await sync.push(user, {
      calendars: [{ uid: 'cal', op: 'upsert', baseVersion: null, fields: { name: 'Home' } }],
      events: [
        { uid: 'series', op: 'upsert', baseVersion: null, fields: { calendarUid: 'cal', title: 'Lesson', startTime: '2026-03-02T17:00:00Z', endTime: '2026-03-02T18:00:00Z', rrule: 'FREQ=WEEKLY' } },
        { uid: 'moved', op: 'upsert', baseVersion: null, fields: { calendarUid: 'cal', title: 'Lesson (moved)', startTime: '2026-03-10T17:00:00Z', endTime: '2026-03-10T18:00:00Z', recurringEventUid: 'series', originalStartTime: '2026-03-09T17:00:00Z' } },
      ],
      tasks: [
        { uid: 'parent', op: 'upsert', baseVersion: null, fields: { title: 'Prepare' } },
        { uid: 'child', op: 'upsert', baseVersion: null, fields: { title: 'Scales', parentTaskUid: 'parent' } },
      ],
      reminders: [
        { uid: 'r-event', op: 'upsert', baseVersion: null, fields: { eventUid: 'series', minutesBefore: 10 } },
        { uid: 'r-task', op: 'upsert', baseVersion: null, fields: { taskUid: 'child', remindAt: '2026-03-01T08:00:00Z' } },
      ],
    });
    const base = versionOf(created.events.find((r) => r.uid === 'series'));
    await sync.push(user, { events: [{ uid: 'series', op: 'upsert', baseVersion: base, fields: { title: 'Piano' } }] });
    const stale = await sync.push(user, { events: [{ uid: 'series', op: 'upsert', baseVersion: base, fields: { title: 'Violin' } }] });
    expect(stale.events[0]!.status).toBe('conflict');
    return user;
  }

  /** Rows of `user` in every table with a user_id column, by table (tables without any left out). */
  async function rowsOf(user: number): Promise<Record<string, number>> {
    const { rows: tables } = await sql<{ table_name: string }>`
      select table_name from information_schema.columns
      where table_schema = current_schema() and column_name = 'user_id' order by table_name`.execute(database.db);
    const counts: Record<string, number> = {};
    for (const { table_name } of tables) {
      const { rows } = await sql<{ n: number }>`select count(*)::integer as n from ${sql.table(table_name)} where user_id = ${user}`.execute(database.db);
      if (rows[0]!.n > 0) counts[table_name] = rows[0]!.n;
    }
    return counts;
  }

  it('removes every row of the user, records, conflicts and receipts included, and keeps another user\'s', async () => {
    const sync = new SyncService({ store: new PostgresSyncStore(database.db), clock: new ManualClock('2026-02-01T00:00:00.000Z'), cursorCodec: new CursorCodec('user-deletion-secret') });
    const gone = await filledUser(sync);
    const kept = await filledUser(sync);
    const before = await rowsOf(kept);
    expect(Object.keys(await rowsOf(gone))).toEqual(expect.arrayContaining(['calendars', 'events', 'tasks', 'reminders', 'sync_conflicts', 'push_receipts']));
    expect(before.events).toBe(2);

    await sql`delete from users where id = ${gone}`.execute(database.db);

    expect(await rowsOf(gone)).toEqual({});
    expect(await rowsOf(kept)).toEqual(before);
  });

  it('an event still needs its user\'s calendar: one naming another user\'s calendar or no user is refused by the keys', async () => {
    const user = await createTestUser(database);
    const other = await createTestUser(database);
    await sql`insert into calendars (user_id, uid, version, created_at, updated_at, name) values (${other}, 'theirs', 1, now(), now(), 'Theirs')`.execute(database.db);
    const insert = (owner: number) => sql`insert into events (user_id, uid, version, created_at, updated_at, calendar_uid, title, start_time, end_time)
      values (${owner}, 'e', 1, now(), now(), 'theirs', 't', '2026-03-02T17:00:00Z', '2026-03-02T18:00:00Z')`.execute(database.db);
    await expect(insert(user)).rejects.toThrow(/foreign key/);
    await expect(insert(other + 1_000_000)).rejects.toThrow(/foreign key/);
  });
});
