import { sql, type Kysely } from 'kysely';

/** The live-reference indexes over a column that most rows leave null: index name, table, column. */
const NULLABLE_REFERENCES = [
  ['events_user_series_live_idx', 'events', 'recurring_event_uid'],
  ['tasks_user_parent_live_idx', 'tasks', 'parent_task_uid'],
  ['reminders_user_event_live_idx', 'reminders', 'event_uid'],
  ['reminders_user_task_live_idx', 'reminders', 'task_uid'],
] as const;

/**
 * The live-reference indexes of the nullable reference columns (an event's series, a task's
 * parent, a reminder's event or task) leave out the rows whose reference is null. Every lookup
 * through them asks for rows that reference given uids (`column = any(…)`), which a null never
 * matches, yet every root event, top-level task and reminder got an index entry: one index
 * insertion of five for each event a push creates, and an index as large as the live table.
 * Each index is rebuilt under its own name.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  for (const [index, table, column] of NULLABLE_REFERENCES) {
    await run(`create index ${index}_new on ${table} (user_id, ${column}) where deleted is null and ${column} is not null`);
    await run(`drop index ${index}`);
    await run(`alter index ${index}_new rename to ${index}`);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  for (const [index, table, column] of NULLABLE_REFERENCES) {
    await run(`create index ${index}_old on ${table} (user_id, ${column}) where deleted is null`);
    await run(`drop index ${index}`);
    await run(`alter index ${index}_old rename to ${index}`);
  }
}
