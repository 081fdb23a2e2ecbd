import type { ColumnType, Generated, Kysely } from 'kysely';
import type { DB } from '../schema.js';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** `auth_sessions`: refresh families (migration 0002). */
export interface AuthSessionsTable {
  id: string;
  user_id: number;
  device_id: ColumnType<string | null, string | number | bigint | null, string | number | bigint | null>;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
  revoke_reason: string | null;
}

/** `auth_refresh_tokens`: hashes of issued refresh tokens. */
export interface AuthRefreshTokensTable {
  token_hash: string;
  session_id: string;
  parent_hash: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  replaced_at: Timestamp | null;
}

/** `auth_otp_codes`: the current code (HMAC) of each phone. */
export interface AuthOtpCodesTable {
  phone: string;
  code_hmac: string;
  name: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  attempts: Generated<number>;
  consumed_at: Timestamp | null;
}

/** `auth_otp_sends`: the log the hourly send cap counts. */
export interface AuthOtpSendsTable {
  id: Generated<string>;
  phone: string;
  sent_at: Timestamp;
  /** Migration 0009: the requester's address (SMS_MAX_PER_IP_PER_HOUR); null before it. */
  ip: string | null;
}

/** The whole schema as the auth stores see it: migration 0001's tables plus 0002's. */
export type AuthDB = DB & {
  auth_sessions: AuthSessionsTable;
  auth_refresh_tokens: AuthRefreshTokensTable;
  auth_otp_codes: AuthOtpCodesTable;
  auth_otp_sends: AuthOtpSendsTable;
};

/** The storage engineer's `Kysely<DB>` seen with the auth tables added. */
export function withAuthTables(db: Kysely<DB>): Kysely<AuthDB> {
  return db.withTables<{
    auth_sessions: AuthSessionsTable;
    auth_refresh_tokens: AuthRefreshTokensTable;
    auth_otp_codes: AuthOtpCodesTable;
    auth_otp_sends: AuthOtpSendsTable;
  }>();
}

/** ISO 8601 form of a timestamp read from either driver. */
export function iso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** ISO form of a nullable timestamp. */
export function isoOrNull(value: Date | string | null): string | null {
  return value === null ? null : iso(value);
}

/** True for a unique-violation error from node-pg or PGlite. */
export function isUniqueViolation(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === '23505';
}
