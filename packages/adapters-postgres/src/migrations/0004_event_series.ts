import { asAllDayDate, dateIn, parseIsoInstant } from '@calsync/domain';
import { sql, type Kysely } from 'kysely';

/**
 * Series and time zones (docs/protocol.md, "Time and recurrence"):
 * - event times become text, so an all-day event holds floating dates (`YYYY-MM-DD`) and a timed
 *   one its instant in `toISOString` form;
 * - all-day events stored as instants (the local midnight of the zone they were made in) become
 *   dates, read in the event's zone, else its calendar's, else UTC; so do an all-day series'
 *   exdate entries and the loser snapshots of unresolved conflicts about them;
 * - overrides: `recurring_event_uid` (a reference to the series, with its key and live index)
 *   and `original_start_time`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  await run(`alter table events alter column start_time type text using ${iso('start_time')}, alter column end_time type text using ${iso('end_time')}`);
  await run('alter table events add column recurring_event_uid text, add column original_start_time text');
  await run('alter table events add foreign key (user_id, recurring_event_uid) references events (user_id, uid)');
  await run('create index events_user_series_live_idx on events (user_id, recurring_event_uid) where deleted is null');

  const allDay = await sql<{ id: string; start_time: string; end_time: string; exdate: string | null; zone: string | null }>`
    select e.id, e.start_time, e.end_time, e.exdate, coalesce(e.timezone, c.timezone) as zone
    from events e left join calendars c on c.user_id = e.user_id and c.uid = e.calendar_uid
    where e.all_day`.execute(db);
  for (const row of allDay.rows) {
    const dates = allDayDates(row, row.zone);
    await sql`update events set start_time = ${dates.startTime}, end_time = ${dates.endTime}, exdate = ${dates.exdate} where id = ${row.id}`.execute(db);
  }

  const snapshots = await sql<{ id: string; snapshot: Record<string, unknown> }>`
    select id, loser_snapshot as snapshot from sync_conflicts
    where entity_type = 'EVENT' and resolved_at is null and loser_snapshot->>'allDay' = 'true'`.execute(db);
  for (const row of snapshots.rows) {
    const s = row.snapshot;
    if (typeof s.startTime !== 'string' || typeof s.endTime !== 'string') continue;
    const zone = typeof s.timezone === 'string' ? s.timezone : null;
    const dates = allDayDates({ start_time: s.startTime, end_time: s.endTime, exdate: typeof s.exdate === 'string' ? s.exdate : null }, zone);
    const next = { ...s, startTime: dates.startTime, endTime: dates.endTime, exdate: dates.exdate };
    await sql`update sync_conflicts set loser_snapshot = ${JSON.stringify(next)}::jsonb where id = ${row.id}`.execute(db);
  }
}

const DAY_MS = 86_400_000;

/** A known IANA zone (Intl's), else UTC: a stored zone is one the service validated. */
function zoneOrUtc(zone: string | null): string {
  if (zone === null) return 'UTC';
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone;
  } catch {
    return 'UTC';
  }
}

/** The date an instant falls on in `zone` (a date or a midnight-UTC instant is its date already). */
function dateOf(value: string, zone: string): string {
  const date = asAllDayDate(value);
  if (date !== null && !value.includes('T')) return date;
  const instant = parseIsoInstant(value);
  return instant === null ? (date ?? value) : dateIn(instant.getTime(), zone);
}

/**
 * The dates of an all-day event stored as instants: start on its date in the zone; the end
 * exclusive, at least one day after the start (an end at local midnight is the day before's end).
 */
function allDayDates(row: { start_time: string; end_time: string; exdate: string | null }, zone: string | null) {
  const z = zoneOrUtc(zone);
  const startTime = dateOf(row.start_time, z);
  const endInstant = parseIsoInstant(row.end_time);
  const lastDay = endInstant === null ? startTime : dateIn(endInstant.getTime() - 1, z);
  const afterStart = new Date(Date.parse(`${startTime}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
  const afterLast = new Date(Date.parse(`${lastDay}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
  const endTime = afterLast > afterStart ? afterLast : afterStart;
  const exdate = row.exdate === null ? null : row.exdate.split(',').map((x) => dateOf(x.trim(), z)).join(',');
  return { startTime, endTime, exdate };
}

/** Not reversible: dates of all-day events cannot be told back into the instants they came from. */
export async function down(): Promise<void> {
  throw new Error('migration 0004_event_series cannot be undone');
}
