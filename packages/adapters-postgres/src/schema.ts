import type { FieldKind, FieldSpec, FieldTables, RecordType } from '@calsync/domain';
import type { ColumnType, Generated } from 'kysely';

/** A timestamptz column: read as Date, written as Date or ISO string. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A timestamptz column with a database default. */
type DefaultTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** An int8 column: node-pg and our PGlite driver both return INT8 as a decimal string. */
type Int8 = ColumnType<string, string | bigint | number, string | bigint | number>;
/** An int8 identity primary key. */
type Int8Id = ColumnType<string, never, never>;
/** A jsonb column. */
type Json<T> = ColumnType<T, string, string>;

/** `users`: accounts; the sign-in engineer's stores read and write it. */
export interface UsersTable {
  id: Generated<number>;
  name: Generated<string>;
  email: string | null;
  phone: string | null;
  password_hash: string | null;
  role: Generated<string>;
  is_phone_verified: Generated<boolean>;
  /** Migration 0008: the default calendar of sign-up may be missing (see `UserRecord.signUpPending`). */
  sign_up_pending: Generated<boolean>;
  notification_settings: ColumnType<
    { syncNotifications: boolean; eventReminders: boolean; conflictAlerts: boolean },
    string | undefined,
    string
  >;
  last_sync_time: Timestamp | null;
  created_at: DefaultTimestamp;
  updated_at: DefaultTimestamp;
}

/** `devices`: one row per (user, client-made device uid). */
export interface DevicesTable {
  id: Int8Id;
  user_id: number;
  uid: string;
  platform: Generated<string>;
  name: Generated<string>;
  fcm_token: string | null;
  /** SHA-256 (hex) of the device's app password (CalDAV sign-in), migration 0005. */
  app_password_hash: Generated<string | null>;
  created_at: DefaultTimestamp;
  last_seen_at: DefaultTimestamp;
  revoked_at: Timestamp | null;
}

/** Columns every synchronised record table has. */
export interface RecordTableBase {
  id: Int8Id;
  user_id: number;
  uid: string;
  version: Int8;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted: Timestamp | null;
}

/** The TypeScript value of a column of this field kind (node-pg and PGlite read timestamptz as Date). */
type ColumnValue<K extends FieldKind> = K extends 'datetime' ? Timestamp : K extends 'boolean' ? boolean : K extends 'integer' ? number : string;

/**
 * A field's column, by the rules `isNotNull` (record-columns.ts) and migration 0001 follow:
 * nullable and not required on create → `T | null`; not nullable and not required on create →
 * a column with a default (`Generated`); otherwise `T`.
 */
type FieldColumn<F extends FieldSpec> = F['nullable'] extends true
  ? F['requiredOnCreate'] extends true
    ? ColumnValue<F['kind']>
    : ColumnValue<F['kind']> | null
  : F['requiredOnCreate'] extends true
    ? ColumnValue<F['kind']>
    : Generated<ColumnValue<F['kind']>>;

/** A record table's row type, derived from its field table: the stamps plus one column per field. */
export type RecordTable<T extends RecordType> = RecordTableBase & {
  [F in FieldTables[T][number] as F['column']]: FieldColumn<F>;
};

/** `calendars` (fields: FIELD_TABLES.calendars). */
export type CalendarsTable = RecordTable<'calendars'>;

/** `events` (fields: FIELD_TABLES.events, plus the legacy sync_status). */
export type EventsTable = RecordTable<'events'> & {
  /** Legacy per-event protocol status: SYNCED, PENDING or CONFLICT. The sync engine never touches it. */
  sync_status: Generated<string>;
};

/** `tasks` (fields: FIELD_TABLES.tasks). */
export type TasksTable = RecordTable<'tasks'>;

/** `reminders` (fields: FIELD_TABLES.reminders). */
export type RemindersTable = RecordTable<'reminders'>;

/** `sync_conflicts`: durable conflict records. */
export interface SyncConflictsTable {
  id: Int8Id;
  user_id: number;
  entity_type: string;
  entity_uid: string;
  winner_version: Int8;
  loser_snapshot: Json<Record<string, unknown>>;
  created_at: Timestamp;
  resolved_at: Timestamp | null;
}

/** `push_receipts`: stored results of applied push items (idempotency). */
export interface PushReceiptsTable {
  user_id: number;
  entity_type: string;
  uid: string;
  /** sha256 of the pushed item, its 32 bytes (the domain's fingerprint is their hex). */
  fingerprint: Buffer;
  result: Json<unknown>;
  created_at: DefaultTimestamp;
}

/**
 * The Kysely schema of the whole database. Other modules (the auth stores) extend it with their
 * own tables by intersection, so this interface only lists the tables of migration 0001.
 */
export interface DB {
  users: UsersTable;
  devices: DevicesTable;
  calendars: CalendarsTable;
  events: EventsTable;
  tasks: TasksTable;
  reminders: RemindersTable;
  sync_conflicts: SyncConflictsTable;
  push_receipts: PushReceiptsTable;
}

/** Compiles only when `D` has the derived table of every record type (a new type must be added to `DB`). */
type RecordTablesOf<D extends { readonly [T in RecordType]: RecordTable<T> }> = D;

/** `DB`, checked to hold every record type's table. */
export type CheckedDB = RecordTablesOf<DB>;
