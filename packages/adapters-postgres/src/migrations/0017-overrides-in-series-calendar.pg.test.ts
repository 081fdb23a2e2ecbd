import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../migrate.js';
import { announceDatabaseKinds, openTestDatabase, type TestDatabase } from '../../test-support/index.js';

const kinds = announceDatabaseKinds('0017-overrides-in-series-calendar.pg.test.ts');

describe.each(kinds)("migration 0017: overrides in their series' calendar (%s)", (kind) => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.close();
    database = undefined;
  });

  it('moves each live override left in another calendar to its series\', with a new version, and leaves the rest as they were', async () => {
    database = await openTestDatabase(kind, { upTo: '0016_series_splits' });
    const db = database.db;
    await sql`insert into users (phone, name) values ('+4915100000017', 'Old')`.execute(db);
    const user = (await sql<{ id: number }>`select id from users`.execute(db)).rows[0]!.id;
    for (const cal of ['home', 'work']) {
      await sql`insert into calendars (user_id, uid, version, created_at, updated_at, name) values (${user}, ${cal}, nextval('record_version_seq'), now(), now(), ${cal})`.execute(db);
    }
    const event = (uid: string, calendar: string, series: string | null, deleted = false) => sql`
      insert into events (user_id, uid, version, created_at, updated_at, deleted, calendar_uid, title, start_time, end_time, rrule, recurring_event_uid, original_start_time)
      values (${user}, ${uid}, nextval('record_version_seq'), now(), now(), ${deleted ? sql`now()` : null}, ${calendar}, ${uid}, '2026-03-10T08:00:00.000Z', '2026-03-10T09:00:00.000Z',
        ${series === null ? 'FREQ=DAILY' : null}, ${series}, ${series === null ? null : '2026-03-11T08:00:00.000Z'})`.execute(db);
    await event('moved', 'work', null);
    await event('left-behind', 'home', 'moved');
    await event('gone', 'home', 'moved', true);
    await event('stayed', 'home', null);
    await event('with-it', 'home', 'stayed');
    const before = new Map((await sql<{ uid: string; version: string }>`select uid, version::text from events`.execute(db)).rows.map((r) => [r.uid, r.version]));

    expect((await migrateToLatest(db)).applied).toContain('0017_overrides_in_series_calendar');

    const after = (await sql<{ uid: string; calendar_uid: string; version: string }>`select uid, calendar_uid, version::text from events order by uid`.execute(db)).rows;
    expect(after.map((r) => [r.uid, r.calendar_uid, r.version === before.get(r.uid)])).toEqual([
      ['gone', 'home', true],
      ['left-behind', 'work', false],
      ['moved', 'work', true],
      ['stayed', 'home', true],
      ['with-it', 'home', true],
    ]);
  });
});
