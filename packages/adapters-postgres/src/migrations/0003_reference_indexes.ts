import { sql, type Kysely } from 'kysely';

/**
 * One index per reference field, on the live rows: deleting a record looks up the live rows that
 * reference it (a calendar's events, an event's reminders, a task's subtasks and reminders), and
 * without these the lookup read every row the user has of that type, at every delete.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  await run('create index events_user_calendar_live_idx on events (user_id, calendar_uid) where deleted is null');
  await run('create index tasks_user_parent_live_idx on tasks (user_id, parent_task_uid) where deleted is null');
  await run('create index reminders_user_event_live_idx on reminders (user_id, event_uid) where deleted is null');
  await run('create index reminders_user_task_live_idx on reminders (user_id, task_uid) where deleted is null');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of ['events_user_calendar_live_idx', 'tasks_user_parent_live_idx', 'reminders_user_event_live_idx', 'reminders_user_task_live_idx']) {
    await sql.raw(`drop index if exists ${index}`).execute(db);
  }
}
