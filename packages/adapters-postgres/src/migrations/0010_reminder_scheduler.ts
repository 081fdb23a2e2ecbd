import { sql, type Kysely } from 'kysely';

/**
 * The reminder scheduler: each reminder's next due time (the plan), one row per settled
 * (reminder, occurrence) so a reminder is delivered once across nodes and restarts, and the lease
 * that lets one node schedule at a time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  await run(`create table reminder_plans (
    user_id integer not null references users(id) on delete cascade,
    reminder_uid text not null,
    due_at timestamptz not null,
    primary key (user_id, reminder_uid)
  )`);
  await run('create index reminder_plans_due_idx on reminder_plans (due_at)');
  await run(`create table reminder_deliveries (
    user_id integer not null references users(id) on delete cascade,
    reminder_uid text not null,
    occurrence_start text not null,
    due_at timestamptz not null,
    outcome text not null,
    recorded_at timestamptz not null,
    primary key (user_id, reminder_uid, occurrence_start)
  )`);
  await run('create index reminder_deliveries_due_idx on reminder_deliveries (due_at)');
  await run(`create table scheduler_leases (
    name text primary key,
    holder text not null,
    expires_at timestamptz not null,
    checked_through timestamptz null
  )`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists scheduler_leases`.execute(db);
  await sql`drop table if exists reminder_deliveries`.execute(db);
  await sql`drop table if exists reminder_plans`.execute(db);
}
