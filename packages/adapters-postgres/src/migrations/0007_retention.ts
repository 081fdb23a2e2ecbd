import { sql, type Kysely } from 'kysely';

/**
 * Retention (docs/protocol.md, "Retention"; ops/README.md): the purge horizon of each user, the
 * highest version of the user's tombstones that the maintenance job removed (a cursor below it gets
 * a full snapshot), and the indexes the job's batched deletes find their rows by. Receipts are
 * appended in time order, so a BRIN index (a few pages, almost free to keep up) finds the old ones;
 * the tombstone indexes hold tombstones only.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  await run(`create table sync_purge_horizons (
    user_id integer primary key references users(id) on delete cascade,
    purged_through bigint not null
  )`);
  for (const table of RECORD_TABLES) await run(`create index ${table}_tombstones_idx on ${table} (deleted) where deleted is not null`);
  await run('create index push_receipts_created_brin on push_receipts using brin (created_at)');
  await run('create index sync_conflicts_resolved_idx on sync_conflicts (resolved_at) where resolved_at is not null');
  await run('create index auth_refresh_tokens_expires_idx on auth_refresh_tokens (expires_at)');
  await run('create index auth_otp_codes_expires_idx on auth_otp_codes (expires_at)');
  await run('create index auth_otp_sends_sent_idx on auth_otp_sends (sent_at)');
}

/** Drops everything `up` made. */
export async function down(db: Kysely<unknown>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  for (const index of [
    ...RECORD_TABLES.map((t) => `${t}_tombstones_idx`),
    'push_receipts_created_brin', 'sync_conflicts_resolved_idx', 'auth_refresh_tokens_expires_idx', 'auth_otp_codes_expires_idx', 'auth_otp_sends_sent_idx',
  ]) {
    await run(`drop index if exists ${index}`);
  }
  await run('drop table if exists sync_purge_horizons');
}

/** The record tables as of this migration. */
const RECORD_TABLES = ['calendars', 'events', 'tasks', 'reminders'] as const;
