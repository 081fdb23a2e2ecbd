import { sql, type Kysely } from 'kysely';

/**
 * Departures of root events from calendars (`RowWrite.leaves`): one row per (user, calendar, root
 * uid) that moved out of that calendar and has not come back, with the version of its last move
 * out and when it was. A calendar's CalDAV readers read them as members gone since that version
 * (its CTag and sync token move, a sync-collection reports a 404), where the rows of the calendar
 * alone no longer name the event. Retention removes them with the tombstones (`departed_at`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table event_departures (
    user_id integer not null references users(id) on delete cascade,
    calendar_uid text not null,
    uid text not null,
    version bigint not null,
    departed_at timestamptz not null,
    primary key (user_id, calendar_uid, uid)
  )`.execute(db);
  await sql`create index event_departures_user_version_idx on event_departures (user_id, version)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists event_departures`.execute(db);
}
