import { sql, type Kysely } from 'kysely';

/**
 * The core schema: users, devices, the global version sequence, the four record tables, conflict
 * records and push receipts. The record columns are written out as they were on the day this
 * migration shipped, not generated from FIELD_TABLES: an applied migration must never change. A new
 * field is a new migration; `schema-matches-field-tables.pg.test.ts` fails until it exists.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);

  await run(`create table users (
    id integer generated always as identity primary key,
    name text not null default '',
    email text null,
    phone text null unique,
    password_hash text null,
    role text not null default 'USER',
    is_phone_verified boolean not null default false,
    notification_settings jsonb not null default '{"syncNotifications":true,"eventReminders":true,"conflictAlerts":true}',
    last_sync_time timestamptz null,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
  )`);
  await run('create unique index users_email_lower_key on users (lower(email))');

  await run(`create table devices (
    id bigint generated always as identity primary key,
    user_id integer not null references users(id) on delete cascade,
    uid text not null,
    platform text not null default '',
    name text not null default '',
    fcm_token text null,
    created_at timestamptz not null default now(),
    last_seen_at timestamptz not null default now(),
    revoked_at timestamptz null,
    unique (user_id, uid)
  )`);

  await run('create sequence record_version_seq as bigint');

  for (const type of RECORD_TABLES) {
    await run(recordTableDdl(type));
    await run(`create index ${type}_user_version_idx on ${type} (user_id, version)`);
  }
  await run('create unique index calendars_one_live_default_idx on calendars (user_id) where is_default and deleted is null');

  await run(`create table sync_conflicts (
    id bigint generated always as identity primary key,
    user_id integer not null references users(id) on delete cascade,
    entity_type text not null,
    entity_uid text not null,
    winner_version bigint not null,
    loser_snapshot jsonb not null,
    created_at timestamptz not null,
    resolved_at timestamptz null
  )`);
  await run('create index sync_conflicts_unresolved_idx on sync_conflicts (user_id, id) where resolved_at is null');

  await run(`create table push_receipts (
    user_id integer not null references users(id) on delete cascade,
    entity_type text not null,
    uid text not null,
    fingerprint text not null,
    result jsonb not null,
    created_at timestamptz not null default now(),
    primary key (user_id, entity_type, uid, fingerprint)
  )`);
}

/** Drops everything `up` made. */
export async function down(db: Kysely<unknown>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  await run('drop table if exists push_receipts, sync_conflicts, reminders, tasks, events, calendars, devices, users cascade');
  await run('drop sequence if exists record_version_seq');
}

/** The record tables, parents first (foreign keys point backwards). */
const RECORD_TABLES = ['calendars', 'events', 'tasks', 'reminders'] as const;

/** Field columns of each record table as of this migration. */
const FIELD_COLUMNS: Readonly<Record<(typeof RECORD_TABLES)[number], readonly string[]>> = {
  calendars: ['name text not null', 'color text', 'timezone text', 'is_default boolean not null default false'],
  events: [
    'calendar_uid text not null', 'title text not null', 'description text', 'location text',
    'start_time timestamptz not null', 'end_time timestamptz not null', 'all_day boolean not null default false',
    'timezone text', 'rrule text', 'exdate text',
    // Legacy per-event protocol field: only /api/users/stats and reset-sync use it.
    "sync_status text not null default 'SYNCED'",
  ],
  tasks: [
    'title text not null', 'notes text', 'due_at timestamptz', 'completed boolean not null default false',
    'completed_at timestamptz', 'priority integer', 'parent_task_uid text',
  ],
  reminders: ['event_uid text', 'task_uid text', 'minutes_before integer', 'remind_at timestamptz'],
};

/** Reference keys of each record table: (user_id, column) -> parent table (user_id, uid). */
const REFERENCES: Readonly<Record<(typeof RECORD_TABLES)[number], readonly [string, string][]>> = {
  calendars: [],
  events: [['calendar_uid', 'calendars']],
  tasks: [['parent_task_uid', 'tasks']],
  reminders: [['event_uid', 'events'], ['task_uid', 'tasks']],
};

/** CREATE TABLE of one record type: common stamps, its field columns, reference keys. */
function recordTableDdl(type: (typeof RECORD_TABLES)[number]): string {
  const lines = [
    'id bigint generated always as identity primary key',
    'user_id integer not null references users(id) on delete cascade',
    'uid text not null',
    'version bigint not null',
    'created_at timestamptz not null',
    'updated_at timestamptz not null',
    'deleted timestamptz null',
    ...FIELD_COLUMNS[type],
    'unique (user_id, uid)',
    ...REFERENCES[type].map(([column, parent]) => `foreign key (user_id, ${column}) references ${parent} (user_id, uid)`),
  ];
  return `create table ${type} (\n  ${lines.join(',\n  ')}\n)`;
}
