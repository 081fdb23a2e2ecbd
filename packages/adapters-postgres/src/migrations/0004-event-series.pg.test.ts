import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../migrate.js';
import { announceDatabaseKinds, openTestDatabase, type TestDatabase } from '../../test-support/index.js';

const kinds = announceDatabaseKinds('0004-event-series.pg.test.ts');

// Rows as the service stored them before event times were text: an all-day event made in Berlin
// is the instant of local midnight, 23:00Z the evening before.
describe.each(kinds)('migration 0004: event times (%s)', (kind) => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.close();
    database = undefined;
  });

  it('keeps timed events as their instants and turns all-day events, their exdates and open conflict snapshots into dates in their zone', async () => {
    database = await openTestDatabase(kind, { upTo: '0003_reference_indexes' });
    const db = database.db;
    await sql`insert into users (phone, name) values ('+4915100000001', 'Old')`.execute(db);
    const { rows } = await sql<{ id: number }>`select id from users`.execute(db);
    const user = rows[0]!.id;
    const insertEvent = (uid: string, start: string, end: string, allDay: boolean, tz: string | null, exdate: string | null) => sql`
      insert into events (user_id, uid, version, created_at, updated_at, calendar_uid, title, start_time, end_time, all_day, timezone, rrule, exdate)
      values (${user}, ${uid}, nextval('record_version_seq'), now(), now(), 'cal', ${uid}, ${start}::timestamptz, ${end}::timestamptz, ${allDay}, ${tz}, ${exdate === null ? null : 'FREQ=DAILY'}, ${exdate})`.execute(db);
    await sql`insert into calendars (user_id, uid, version, created_at, updated_at, name, timezone) values (${user}, 'cal', nextval('record_version_seq'), now(), now(), 'Home', 'Europe/Berlin')`.execute(db);
    await insertEvent('timed', '2026-03-10T08:00:00.123Z', '2026-03-10T09:00:00Z', false, null, null);
    await insertEvent('berlin-day', '2026-03-09T23:00:00Z', '2026-03-10T23:00:00Z', true, null, '2026-03-11T23:00:00.000Z');
    await insertEvent('ny-day', '2026-03-10T04:00:00Z', '2026-03-10T04:00:00Z', true, 'America/New_York', null);
    await sql`insert into sync_conflicts (user_id, entity_type, entity_uid, winner_version, loser_snapshot, created_at)
      values (${user}, 'EVENT', 'berlin-day', 1, ${JSON.stringify({ uid: 'berlin-day', allDay: true, startTime: '2026-03-09T23:00:00.000Z', endTime: '2026-03-10T23:00:00.000Z', timezone: 'Europe/Berlin', exdate: null })}::jsonb, now())`.execute(db);

    expect((await migrateToLatest(db)).applied).toContain('0004_event_series');

    const events = await sql<{ uid: string; start_time: string; end_time: string; exdate: string | null; recurring_event_uid: string | null }>`
      select uid, start_time, end_time, exdate, recurring_event_uid from events order by uid`.execute(db);
    expect(events.rows).toEqual([
      { uid: 'berlin-day', start_time: '2026-03-10', end_time: '2026-03-11', exdate: '2026-03-12', recurring_event_uid: null },
      { uid: 'ny-day', start_time: '2026-03-10', end_time: '2026-03-11', exdate: null, recurring_event_uid: null },
      { uid: 'timed', start_time: '2026-03-10T08:00:00.123Z', end_time: '2026-03-10T09:00:00.000Z', exdate: null, recurring_event_uid: null },
    ]);
    const snapshot = await sql<{ s: Record<string, unknown> }>`select loser_snapshot as s from sync_conflicts`.execute(db);
    expect([snapshot.rows[0]!.s.startTime, snapshot.rows[0]!.s.endTime]).toEqual(['2026-03-10', '2026-03-11']);
  });
});
