/** The four record collections, in the order push applies them. */
export const RECORD_TYPES = ['calendars', 'events', 'tasks', 'reminders'] as const;

/** One record collection name as it appears in push and pull bodies. */
export type RecordType = (typeof RECORD_TYPES)[number];

/** A record as pull returns it: server stamps plus the type's fields. */
export interface WireRecord {
  readonly uid: string;
  readonly version: string;
  readonly deleted: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly [field: string]: unknown;
}

/** One pushed item: identity, operation, the last version seen, and a patch of fields. */
export interface PushItem {
  readonly uid: string;
  readonly op: 'upsert' | 'delete';
  readonly baseVersion: string | null;
  readonly [field: string]: unknown;
}

/** One per-item push result. */
export interface PushResult {
  readonly uid: string;
  readonly id?: number;
  readonly version: string | null;
  readonly status: 'created' | 'updated' | 'deleted' | 'conflict' | 'error';
  readonly conflictId?: number;
  readonly error?: { readonly code: string; readonly message: string; readonly retryable: boolean };
}

/** A SyncConflict record on the wire. */
export interface WireConflict {
  readonly conflictId: number;
  readonly entityType: string;
  readonly entityUid: string;
  readonly winnerVersion: string;
  readonly loserSnapshot: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
  readonly resolvedAt: string | null;
}

/** `data` of POST /api/sync/push. */
export type PushData = { readonly [T in RecordType]: readonly PushResult[] } & { readonly conflicts: readonly WireConflict[] };

/** `data` of GET /api/sync/changes. */
export type PullData = { readonly [T in RecordType]: readonly WireRecord[] } & {
  readonly cursorReset: boolean;
  readonly nextCursor: string;
  readonly hasMore: boolean;
};

/** A decimal version string: digits only, no sign, no leading zero (the wire form of a bigint). */
export const DECIMAL_VERSION = /^(0|[1-9][0-9]*)$/;
