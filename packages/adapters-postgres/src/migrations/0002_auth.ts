import { sql, type Kysely } from 'kysely';

/**
 * Sign-in state: refresh families (sessions), refresh tokens (hashes only), one-time codes (HMACs
 * only) and the send log of the hourly OTP cap.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);

  // A refresh family. device_id null: the legacy family stored "on the User" (one live per user).
  await run(`create table auth_sessions (
    id text primary key,
    user_id integer not null references users(id) on delete cascade,
    device_id bigint null references devices(id) on delete cascade,
    created_at timestamptz not null,
    revoked_at timestamptz null,
    revoke_reason text null
  )`);
  await run('create unique index auth_sessions_one_live_legacy_idx on auth_sessions (user_id) where device_id is null and revoked_at is null');
  await run('create unique index auth_sessions_one_live_per_device_idx on auth_sessions (device_id) where device_id is not null and revoked_at is null');
  await run('create index auth_sessions_user_idx on auth_sessions (user_id)');

  // SHA-256 of each refresh token ever issued; replaced_at marks rotation (replay detection).
  await run(`create table auth_refresh_tokens (
    token_hash text primary key,
    session_id text not null references auth_sessions(id) on delete cascade,
    parent_hash text null,
    created_at timestamptz not null,
    expires_at timestamptz not null,
    replaced_at timestamptz null
  )`);
  await run('create index auth_refresh_tokens_session_idx on auth_refresh_tokens (session_id)');

  // The one current code of a phone: HMAC-SHA256(server key, phone + code), never the code.
  await run(`create table auth_otp_codes (
    phone text primary key,
    code_hmac text not null,
    name text null,
    created_at timestamptz not null,
    expires_at timestamptz not null,
    attempts integer not null default 0,
    consumed_at timestamptz null
  )`);

  await run(`create table auth_otp_sends (
    id bigint generated always as identity primary key,
    phone text not null,
    sent_at timestamptz not null
  )`);
  await run('create index auth_otp_sends_phone_idx on auth_otp_sends (phone, sent_at)');
}

/** Drops everything `up` made. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop table if exists auth_otp_sends, auth_otp_codes, auth_refresh_tokens, auth_sessions cascade').execute(db);
}
