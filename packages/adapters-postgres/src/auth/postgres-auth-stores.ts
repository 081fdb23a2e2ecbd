import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';
import { PostgresDeviceStore } from './postgres-device-store.js';
import { PostgresOtpStore } from './postgres-otp-store.js';
import { PostgresSessionStore } from './postgres-session-store.js';
import { PostgresUserStore } from './postgres-user-store.js';

/** The sign-in stores on one database, as `AuthService` takes them (spread them into its deps). */
export interface PostgresAuthStores {
  readonly users: PostgresUserStore;
  readonly devices: PostgresDeviceStore;
  readonly sessions: PostgresSessionStore;
  readonly otps: PostgresOtpStore;
}

/** User, device, session and one-time-code stores on `db` (PostgreSQL or PGlite). */
export function postgresAuthStores(db: Kysely<DB>): PostgresAuthStores {
  return { users: new PostgresUserStore(db), devices: new PostgresDeviceStore(db), sessions: new PostgresSessionStore(db), otps: new PostgresOtpStore(db) };
}
