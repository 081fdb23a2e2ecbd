import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorCodec, RetentionJob, SyncService, type PullResponse } from '@calsync/domain';
import { ManualClock } from '@calsync/testkit';
import { PostgresRetentionStore } from './postgres-retention-store.js';
import { PostgresSyncStore } from './postgres-sync-store.js';
import { PostgresRenderStore } from './dav/postgres-render-store.js';
import { announceDatabaseKinds, createTestUser, openTestDatabase, type TestDatabase, versionOf } from '../test-support/index.js';

// The old-cursor case of retention on the engine: a device whose cursor predates the tombstone
// purge horizon gets cursorReset and a snapshot without the purged tombstones; a device whose
// cursor is inside the horizon still gets the tombstones it has not seen.
const DAY = 86_400_000;

describe.each(announceDatabaseKinds('retention.pg.test.ts'))('tombstone retention and cursors (%s)', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase(kind);
  });
  afterAll(async () => {
    await database?.close();
  });

  const uids = (page: PullResponse) => page.events.map((e) => `${e.uid}${e.deleted ? ' (deleted)' : ''}`).sort();

  it('answers a cursor older than the purge horizon with a full snapshot, and one inside it with the tombstones', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const sync = new SyncService({ store: new PostgresSyncStore(database.db), clock, cursorCodec: new CursorCodec('retention-test-secret') });
    const job = new RetentionJob({
      store: new PostgresRetentionStore(database.db, kind),
      clock,
      policy: { receiptsMs: 30 * DAY, tombstonesMs: 90 * DAY, conflictsMs: 180 * DAY },
    });
    const user = await createTestUser(database);
    const event = (uid: string) => ({ uid, op: 'upsert' as const, baseVersion: null, fields: { calendarUid: 'cal', title: uid, startTime: '2026-02-01T09:00:00Z', endTime: '2026-02-01T10:00:00Z' } });
    const created = await sync.push(user, {
      calendars: [{ uid: 'cal', op: 'upsert', baseVersion: null, fields: { name: 'Home' } }],
      events: ['old-gone', 'recent-gone', 'kept'].map(event),
    });
    const version = (uid: string) => versionOf(created.events.find((r) => r.uid === uid)!);
    const offline = await sync.pull(user, {});
    expect(uids(offline)).toEqual(['kept', 'old-gone', 'recent-gone']);

    clock.advance(DAY);
    await sync.push(user, { events: [{ uid: 'old-gone', op: 'delete', baseVersion: version('old-gone'), fields: {} }] });
    const recent = await sync.pull(user, { cursor: offline.nextCursor });
    expect(uids(recent)).toEqual(['old-gone (deleted)']);

    clock.advance(60 * DAY);
    await sync.push(user, { events: [{ uid: 'recent-gone', op: 'delete', baseVersion: version('recent-gone'), fields: {} }] });
    // 95 days after the first delete, 34 after the second: only the first is past the 90-day horizon.
    clock.advance(34 * DAY);
    const report = await job.runOnce();
    expect(report?.tombstones).toBe(1);

    const stale = await sync.pull(user, { cursor: offline.nextCursor });
    expect(stale.cursorReset).toBe(true);
    expect(uids(stale)).toEqual(['kept', 'recent-gone (deleted)']);
    expect(stale.calendars.map((c) => c.uid)).toEqual(['cal']);

    const inside = await sync.pull(user, { cursor: recent.nextCursor });
    expect(inside.cursorReset).toBe(false);
    expect(uids(inside)).toEqual(['recent-gone (deleted)']);

    // The cursor of the snapshot is past the horizon: the next pull goes on from it.
    const after = await sync.pull(user, { cursor: stale.nextCursor });
    expect(after.cursorReset).toBe(false);
    expect(uids(after)).toEqual([]);
  });

  it('removes the kept CalDAV renders of objects deleted through the sync API in the next run, and those of purged tombstones, keeping live ones', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const sync = new SyncService({ store: new PostgresSyncStore(database.db), clock, cursorCodec: new CursorCodec('retention-test-secret') });
    const store = new PostgresRetentionStore(database.db, kind);
    const job = new RetentionJob({ store, clock, policy: { receiptsMs: 30 * DAY, tombstonesMs: 90 * DAY, conflictsMs: 180 * DAY }, batch: 2 });
    const renders = new PostgresRenderStore(database.db);
    const user = await createTestUser(database);
    const event = (uid: string) => ({ uid, op: 'upsert' as const, baseVersion: null, fields: { calendarUid: 'cal', title: uid, startTime: '2026-02-01T09:00:00Z', endTime: '2026-02-01T10:00:00Z' } });
    const created = await sync.push(user, {
      calendars: [{ uid: 'cal', op: 'upsert', baseVersion: null, fields: { name: 'Home' } }],
      events: ['ev-kept', 'ev-a', 'ev-b', 'ev-c'].map(event),
      tasks: [{ uid: 'task-gone', op: 'upsert', baseVersion: null, fields: { title: 'gone' } }],
    });
    const all = ['ev-kept', 'ev-a', 'ev-b', 'ev-c', 'task-gone'];
    await renders.keepRenders(user, all.map((uid) => ({ uid, key: `k-${uid}`, text: `BEGIN:VCALENDAR\r\n${uid}\r\nEND:VCALENDAR\r\n` })));
    const kept = async () => (await renders.readRenders(user, all)).map((r) => r.uid).sort();
    const renderRows = async () => Number((await sql<{ n: number }>`select count(*)::integer as n from dav_renders where user_id = ${user}`.execute(database.db)).rows[0]!.n);

    const gone = ['ev-a', 'ev-b', 'ev-c'];
    await sync.push(user, {
      events: gone.map((uid) => ({ uid, op: 'delete' as const, baseVersion: versionOf(created.events.find((r) => r.uid === uid)!), fields: {} })),
      tasks: [{ uid: 'task-gone', op: 'delete', baseVersion: versionOf(created.tasks[0]!), fields: {} }],
    });
    // Batches of two: the job goes on until a batch comes back short.
    const first = await job.runOnce();
    expect(first?.renders).toBe(4);
    expect(first?.tombstones).toBe(0);
    expect(await kept()).toEqual(['ev-kept']);
    expect(await renderRows()).toBe(1);

    // A render kept for an object after its tombstone was purged (nothing left of it) goes too.
    clock.advance(91 * DAY);
    expect((await job.runOnce())?.tombstones).toBe(4);
    await renders.keepRenders(user, [{ uid: 'ev-a', key: 'late', text: 'late' }]);
    expect((await job.runOnce())?.renders).toBe(1);
    expect(await kept()).toEqual(['ev-kept']);
  });
});
