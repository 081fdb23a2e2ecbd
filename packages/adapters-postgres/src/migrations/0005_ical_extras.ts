import { sql, type Kysely } from 'kysely';

/**
 * iCalendar fidelity (docs/protocol.md, "iCalendar and CalDAV"): events, tasks and reminders keep
 * the properties of their iCalendar component that the other fields do not hold. App passwords
 * (CalDAV sign-in) are devices with a password hash; subscription feeds keep a hash of their token.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  for (const table of ['events', 'tasks', 'reminders']) await run(`alter table ${table} add column ical_extras text`);
  await run('alter table devices add column app_password_hash text');
  await run('create unique index devices_app_password_idx on devices (app_password_hash) where app_password_hash is not null');
  await run(`create table calendar_feeds (
    id bigint generated always as identity primary key,
    user_id integer not null references users(id) on delete cascade,
    calendar_uid text not null,
    token_hash text not null unique,
    created_at timestamptz not null default now(),
    revoked_at timestamptz null
  )`);
  await run('create index calendar_feeds_user_idx on calendar_feeds (user_id) where revoked_at is null');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  await run('drop table if exists calendar_feeds');
  await run('drop index if exists devices_app_password_idx');
  await run('alter table devices drop column if exists app_password_hash');
  for (const table of ['events', 'tasks', 'reminders']) await run(`alter table ${table} drop column if exists ical_extras`);
}
