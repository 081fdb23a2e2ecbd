import type { FieldValue, RecordType } from '@calsync/domain/rules';

/** A record as the device holds it: every field of its type, and the last server version it saw. */
export interface StoredRecord {
  readonly type: RecordType;
  readonly uid: string;
  readonly fields: Readonly<Record<string, FieldValue>>;
  /** Version of the server row this copy is based on; null while the record exists only here. */
  readonly version: string | null;
}

/** What an outbox item pushed, frozen when it left: a re-push must be byte-for-byte the same. */
export interface SentPayload {
  readonly op: 'upsert' | 'delete';
  readonly baseVersion: string | null;
  readonly fields: Readonly<Record<string, FieldValue>>;
}

/** An error the server (or the client's own checks) gave an outbox item. */
export interface OutboxError {
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
}

/**
 * One pending local mutation of one record. Later edits merge into it while it is `pending` and was
 * never sent; once sent (`sent` set) its payload is frozen until a definite result arrives.
 */
export interface OutboxItem {
  /** Order of creation; the outbox's key. */
  readonly seq: number;
  readonly type: RecordType;
  readonly uid: string;
  readonly op: 'upsert' | 'delete';
  /** Fields to send (upsert): the union of the merged edits. */
  readonly patch: Readonly<Record<string, FieldValue>>;
  /** For a delete, and for an upsert whose record was removed by pull: the version last seen. */
  readonly baseVersion: string | null;
  /** `inflight`: sent, result not stored yet; `failed`: parked until `outbox.retry`. */
  readonly state: 'pending' | 'inflight' | 'failed';
  /** Per-item errors received so far. */
  readonly attempts: number;
  /** The payload of a push whose result is unknown (crash, lost answer): re-pushed unchanged. */
  readonly sent: SentPayload | null;
  /** A retryable error (unknown reference): not pushed again before the next pull. */
  readonly waitForPull: boolean;
  readonly lastError: OutboxError | null;
  /**
   * For a frozen upsert (`sent` set) whose record a pull brought meanwhile: the pulled version and
   * the server's values of the fields this item lays over it. An answer that is not newer than that
   * version (a re-push answered from its receipt) says the pulled copy already holds or supersedes
   * the item, so these values come back.
   */
  readonly pulledUnder?: { readonly version: string; readonly fields: Readonly<Record<string, FieldValue>> };  /**
   * For a delete: the frozen upserts (their answers outstanding) of records below it when it was
   * deleted here. It waits for their answers: sent in one push, the server's cascade would reach
   * them first and turn each into a conflict with this device's own delete. A calendar delete
   * also waits for the frozen default changes of other calendars: the server may have demoted the
   * calendar being deleted, or merged a new default into it, and the answer must be known (then
   * the demotion pulled, or the merge handled by planRekey) before the delete goes.
   */
  readonly waitsFor?: readonly number[];
}

/** Metadata values the client keeps: cursor, device uid, tokens, signed-in user. */
export type MetaValue = string | number | boolean | null | { readonly [key: string]: MetaValue } | readonly MetaValue[];

/** One atomic change to a store: every part applies, or none does. */
export interface StoreWrite {
  readonly putRecords?: readonly StoredRecord[];
  readonly deleteRecords?: readonly { readonly type: RecordType; readonly uid: string }[];
  readonly putOutbox?: readonly OutboxItem[];
  readonly deleteOutbox?: readonly number[];
  readonly putMeta?: Readonly<Record<string, MetaValue>>;
  readonly deleteMeta?: readonly string[];
}

/** Everything a store holds, read once when the client opens. */
export interface StoreContents {
  readonly records: readonly StoredRecord[];
  /** In `seq` order. */
  readonly outbox: readonly OutboxItem[];
  readonly meta: Readonly<Record<string, MetaValue>>;
}

/**
 * The device's durable storage: records by (type, uid), the outbox by seq, and metadata by key.
 * Guarantees: `write` is atomic (all of it or nothing, also across a crash of a durable store);
 * writes apply in call order; `load` after a `write` has resolved sees it, also after `close` and
 * a new `open` of the same store; stored values come back equal, never aliased to the caller's
 * objects. `clear` removes everything. Implemented by `MemoryStore` and `IndexedDbStore`; one
 * contract suite holds both to this.
 */
export interface LocalStore {
  open(): Promise<void>;
  load(): Promise<StoreContents>;
  write(change: StoreWrite): Promise<void>;
  clear(): Promise<void>;
  close(): Promise<void>;
}
