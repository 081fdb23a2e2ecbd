import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DeliveryRecord, PlannedReminder, RecordRow, RecordType, ReminderSources, ReminderStore, SourceRecord } from '@calsync/domain';
import { encodeAlert, notifyAllQuery } from '../notify/change-payload.js';
import { recordFromSql, recordSelectList, type SqlRecordRow } from '../record-mapping.js';
import type { DB } from '../schema.js';

/**
 * The live rows of `type` matching `match` for each user of `named`, in (user, id) order: per user
 * (a lateral subquery), `match` sees that user's named uids as `w.uids`, so each user's read is
 * the single-user statement with its own index use (every record read is scoped by user).
 */
function namedRecordsQuery(type: RecordType, named: { users: readonly number[]; uids: readonly string[] }, match: RawBuilder<unknown>): RawBuilder<SqlRecordRow> {
  return sql<SqlRecordRow>`select r.* from (select p.user_id, array_agg(p.uid) as uids from unnest(cast(${[...named.users]} as integer[]), cast(${[...named.uids]} as text[])) as p(user_id, uid) group by p.user_id) w
    cross join lateral (select ${recordSelectList(type)} from ${sql.table(type)} where user_id = w.user_id and deleted is null and ${match} order by id) r
    order by r.user_id, r.id`;
}

/**
 * `ReminderStore` on PostgreSQL and PGlite (tables of migration 0010). Each method is a fixed number
 * of statements for any number of users. Delivery records are one `insert … on conflict do nothing`
 * on the (user, reminder, occurrence) primary key, with the NOTIFY of the alerts it stored in the
 * same transaction: the streams hear of exactly the records that committed.
 */
export class PostgresReminderStore implements ReminderStore {
  constructor(private readonly db: Kysely<DB>) {}

  async readSources(userIds: readonly number[]): Promise<ReadonlyMap<number, ReminderSources>> {
    const users = [...new Set(userIds)];
    const sources = new Map<number, { reminders: SourceRecord[]; events: SourceRecord[]; tasks: SourceRecord[]; calendarZones: Map<string, string | null> }>(
      users.map((u) => [u, { reminders: [], events: [], tasks: [], calendarZones: new Map() }]),
    );
    if (users.length === 0) return sources;
    const run = async (type: RecordType, query: RawBuilder<SqlRecordRow>, into: (row: RecordRow) => void): Promise<void> => {
      const { rows } = await query.execute(this.db);
      for (const r of rows) into(recordFromSql(type, r));
    };
    await run('reminders', sql<SqlRecordRow>`select ${recordSelectList('reminders')} from reminders where user_id = any(cast(${users} as integer[])) and deleted is null order by user_id, id`, (row) =>
      sources.get(row.userId)!.reminders.push({ uid: row.uid, fields: row.fields }),
    );
    // The (user, uid) pairs the reminders name, per user: each user's read is the single-user one (by uid, or a series' overrides).
    const named = (field: 'eventUid' | 'taskUid') => {
      const pairs = [...sources].flatMap(([userId, s]) => [...new Set(s.reminders.map((r) => r.fields[field]).filter((u): u is string => typeof u === 'string'))].map((uid) => [userId, uid] as const));
      return { users: pairs.map((p) => p[0]), uids: pairs.map((p) => p[1]) };
    };
    const events = named('eventUid');
    if (events.uids.length > 0) {
      await run('events', namedRecordsQuery('events', events, sql`(uid = any(w.uids) or recurring_event_uid = any(w.uids))`), (row) => sources.get(row.userId)!.events.push({ uid: row.uid, fields: row.fields }));
      const withEvents = [...new Set(events.users)];
      await run('calendars', sql<SqlRecordRow>`select ${recordSelectList('calendars')} from calendars where user_id = any(cast(${withEvents} as integer[])) and deleted is null order by user_id, id`, (row) =>
        sources.get(row.userId)!.calendarZones.set(row.uid, typeof row.fields.timezone === 'string' ? row.fields.timezone : null),
      );
    }
    const tasks = named('taskUid');
    if (tasks.uids.length > 0) await run('tasks', namedRecordsQuery('tasks', tasks, sql`uid = any(w.uids)`), (row) => sources.get(row.userId)!.tasks.push({ uid: row.uid, fields: row.fields }));
    return sources;
  }

  async replacePlans(plans: ReadonlyMap<number, readonly PlannedReminder[]>): Promise<void> {
    if (plans.size === 0) return;
    const rows = [...plans].flatMap(([userId, mine]) => mine.map((p) => ({ userId, ...p })));
    await this.db.transaction().execute(async (tx) => {
      await sql`delete from reminder_plans where user_id = any(cast(${[...plans.keys()]} as integer[]))`.execute(tx);
      if (rows.length === 0) return;
      await sql`insert into reminder_plans (user_id, reminder_uid, due_at)
        select * from unnest(cast(${rows.map((r) => r.userId)} as integer[]), cast(${rows.map((r) => r.reminderUid)} as text[]), cast(${rows.map((r) => r.dueAt)} as timestamptz[]))`.execute(tx);
    });
  }

  async usersDueBy(until: string, limit: number): Promise<number[]> {
    const { rows } = await sql<{ user_id: number }>`select user_id from reminder_plans where due_at <= cast(${until} as timestamptz)
      group by user_id order by min(due_at), user_id limit ${limit}`.execute(this.db);
    return rows.map((r) => Number(r.user_id));
  }

  async usersWithReminders(afterUserId: number, limit: number): Promise<number[]> {
    const { rows } = await sql<{ id: number }>`select u.id from users u where u.id > ${afterUserId}
      and exists (select 1 from reminders r where r.user_id = u.id and r.deleted is null) order by u.id limit ${limit}`.execute(this.db);
    return rows.map((r) => Number(r.id));
  }

  async recordDeliveries(records: readonly DeliveryRecord[]): Promise<boolean[]> {
    if (records.length === 0) return [];
    const keyOf = (userId: number, reminderUid: string, occurrenceStart: string): string => JSON.stringify([userId, reminderUid, occurrenceStart]);
    return this.db.transaction().execute(async (tx) => {
      const column = <T>(pick: (r: DeliveryRecord) => T): T[] => records.map(pick);
      const { rows } = await sql<{ user_id: number; reminder_uid: string; occurrence_start: string }>`insert into reminder_deliveries (user_id, reminder_uid, occurrence_start, due_at, outcome, recorded_at)
        select * from unnest(cast(${column((r) => r.userId)} as integer[]), cast(${column((r) => r.reminderUid)} as text[]), cast(${column((r) => r.occurrenceStart)} as text[]),
          cast(${column((r) => r.dueAt)} as timestamptz[]), cast(${column((r) => r.outcome)} as text[]), cast(${column((r) => r.recordedAt)} as timestamptz[]))
        on conflict do nothing returning user_id, reminder_uid, occurrence_start`.execute(tx);
      const inserted = new Set(rows.map((r) => keyOf(Number(r.user_id), r.reminder_uid, r.occurrence_start)));
      // A key twice in one call is stored once: only its first record counts as stored.
      const stored = records.map((r) => inserted.delete(keyOf(r.userId, r.reminderUid, r.occurrenceStart)));
      const alerts = records.flatMap((r, i) => (stored[i] && r.outcome === 'sent' && r.alert !== null ? [encodeAlert(r.alert)] : []));
      if (alerts.length > 0) await notifyAllQuery(alerts).execute(tx);
      return stored;
    });
  }

  async pruneDeliveries(before: string, limit: number): Promise<number> {
    const result = await sql`delete from reminder_deliveries where ctid = any(array(
      select ctid from reminder_deliveries where due_at < cast(${before} as timestamptz) limit ${limit}))`.execute(this.db);
    return Number(result.numAffectedRows ?? 0);
  }
}
