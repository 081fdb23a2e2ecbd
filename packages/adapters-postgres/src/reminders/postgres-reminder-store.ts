import { sql, type Kysely } from 'kysely';
import type { DeliveryRecord, PlannedReminder, RecordType, ReminderSources, ReminderStore, SourceRecord } from '@calsync/domain';
import { encodeAlert, notifyQuery } from '../notify/change-payload.js';
import { recordFromSql } from '../record-mapping.js';
import { recordQuery } from '../record-queries.js';
import type { DB } from '../schema.js';

/**
 * `ReminderStore` on PostgreSQL and PGlite (tables of migration 0010). A delivery record is one
 * `insert … on conflict do nothing` on the (user, reminder, occurrence) primary key, with the
 * alert's NOTIFY in the same transaction: the streams hear of exactly the records that committed.
 */
export class PostgresReminderStore implements ReminderStore {
  constructor(private readonly db: Kysely<DB>) {}

  async readSources(userId: number): Promise<ReminderSources> {
    const read = async (type: RecordType, condition: ReturnType<typeof sql>): Promise<SourceRecord[]> => {
      const { rows } = await recordQuery(type, userId, condition, sql`order by id`).execute(this.db);
      return rows.map((r) => {
        const row = recordFromSql(type, r);
        return { uid: row.uid, fields: row.fields };
      });
    };
    const reminders = await read('reminders', sql`deleted is null`);
    const eventUids = [...new Set(reminders.map((r) => r.fields.eventUid).filter((u): u is string => typeof u === 'string'))];
    const taskUids = [...new Set(reminders.map((r) => r.fields.taskUid).filter((u): u is string => typeof u === 'string'))];
    const events =
      eventUids.length === 0
        ? []
        : await read('events', sql`deleted is null and (uid = any(cast(${eventUids} as text[])) or recurring_event_uid = any(cast(${eventUids} as text[])))`);
    const tasks = taskUids.length === 0 ? [] : await read('tasks', sql`deleted is null and uid = any(cast(${taskUids} as text[]))`);
    const calendars = events.length === 0 ? [] : await read('calendars', sql`deleted is null`);
    return {
      reminders,
      events,
      tasks,
      calendarZones: new Map(calendars.map((c) => [c.uid, typeof c.fields.timezone === 'string' ? c.fields.timezone : null])),
    };
  }

  async replacePlan(userId: number, plans: readonly PlannedReminder[]): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await sql`delete from reminder_plans where user_id = ${userId}`.execute(tx);
      if (plans.length === 0) return;
      await sql`insert into reminder_plans (user_id, reminder_uid, due_at)
        select ${userId}, p.uid, p.due from unnest(cast(${plans.map((p) => p.reminderUid)} as text[]), cast(${plans.map((p) => p.dueAt)} as timestamptz[])) as p(uid, due)`.execute(tx);
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

  async recordDelivery(record: DeliveryRecord): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const { rows } = await sql<{ user_id: number }>`insert into reminder_deliveries (user_id, reminder_uid, occurrence_start, due_at, outcome, recorded_at)
        values (${record.userId}, ${record.reminderUid}, ${record.occurrenceStart}, cast(${record.dueAt} as timestamptz), ${record.outcome}, cast(${record.recordedAt} as timestamptz))
        on conflict do nothing returning user_id`.execute(tx);
      if (rows.length === 0) return false;
      if (record.outcome === 'sent' && record.alert !== null) await notifyQuery(encodeAlert(record.alert)).execute(tx);
      return true;
    });
  }

  async pruneDeliveries(before: string, limit: number): Promise<number> {
    const result = await sql`delete from reminder_deliveries where ctid = any(array(
      select ctid from reminder_deliveries where due_at < cast(${before} as timestamptz) limit ${limit}))`.execute(this.db);
    return Number(result.numAffectedRows ?? 0);
  }
}
