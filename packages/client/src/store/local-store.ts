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
  readonly pulledUnder?: { readonly version: string; readonly fields: Readonly<Record<string, FieldValue>> };
  /**
   * For an upsert of a record the server has: the values its patched fields had in the version the
   * item goes out against (the record's version when it is sent). A stale push's answer compares
   * them with the conflict's loser to tell what, if anything, the other device's version lost
   * (`settleStaleWrite`). Absent for a create, and for an item queued by an older client.
   */
  readonly base?: Readonly<Record<string, FieldValue>>;
  /**
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

/**
 * One atomic change to a store: every part applies, or none does. Deletes apply before puts; of two
 * puts of one key, the later stands.
 */
export interface StoreWrite {
  readonly putRecords?: readonly StoredRecord[];
  readonly deleteRecords?: readonly { readonly type: RecordType; readonly uid: string }[];
  readonly putOutbox?: readonly OutboxItem[];
  readonly deleteOutbox?: readonly number[];
  readonly putMeta?: Readonly<Record<string, MetaValue>>;
  readonly deleteMeta?: readonly string[];
}

/**
 * One write with the effect of `writes` applied one after another (within a write, deletes apply
 * before puts), so writes queued while the store is busy go as one atomic write. Laid end to end,
 * the writes' lists have that effect (a later put of a key replaces an earlier one, a put after a
 * delete stands) unless a later write deletes what an earlier one puts: then, per record, outbox
 * seq and metadata key, the last write that names it decides whether it is put (with which value)
 * or deleted.
 */
export function mergeWrites(writes: readonly StoreWrite[]): StoreWrite {
  if (writes.length === 1) return writes[0]!;
  return deletesWhatAnEarlierOnePuts(writes) ? lastWriteWins(writes) : endToEnd(writes);
}

/** The key of a record among all types: its type and uid (a uid is unique only within its type). */
export const recordKey = (type: RecordType, uid: string): string => `${type}\u0000${uid}`;

function deletesWhatAnEarlierOnePuts(writes: readonly StoreWrite[]): boolean {
  for (let j = 1; j < writes.length; j++) {
    const w = writes[j]!;
    if (w.deleteRecords?.length) {
      const gone = new Set(w.deleteRecords.map((r) => recordKey(r.type, r.uid)));
      if (writes.slice(0, j).some((e) => e.putRecords?.some((r) => gone.has(recordKey(r.type, r.uid))))) return true;
    }
    if (w.deleteOutbox?.length) {
      const gone = new Set(w.deleteOutbox);
      if (writes.slice(0, j).some((e) => e.putOutbox?.some((i) => gone.has(i.seq)))) return true;
    }
    if (w.deleteMeta?.length && writes.slice(0, j).some((e) => w.deleteMeta!.some((key) => e.putMeta !== undefined && Object.hasOwn(e.putMeta, key)))) return true;
  }
  return false;
}

function endToEnd(writes: readonly StoreWrite[]): StoreWrite {
  const out = {
    deleteRecords: [] as { type: RecordType; uid: string }[],
    putRecords: [] as StoredRecord[],
    deleteOutbox: [] as number[],
    putOutbox: [] as OutboxItem[],
    deleteMeta: [] as string[],
    // No prototype: every key, "__proto__" too, is the object's own.
    putMeta: Object.create(null) as Record<string, MetaValue>,
  };
  for (const w of writes) {
    if (w.deleteRecords) out.deleteRecords.push(...w.deleteRecords);
    if (w.putRecords) out.putRecords.push(...w.putRecords);
    if (w.deleteOutbox) out.deleteOutbox.push(...w.deleteOutbox);
    if (w.putOutbox) out.putOutbox.push(...w.putOutbox);
    if (w.deleteMeta) out.deleteMeta.push(...w.deleteMeta);
    if (w.putMeta) Object.assign(out.putMeta, w.putMeta);
  }
  return out;
}

function lastWriteWins(writes: readonly StoreWrite[]): StoreWrite {
  const records = new Map<string, { type: RecordType; uid: string; put?: StoredRecord }>();
  const outbox = new Map<number, OutboxItem | null>();
  const meta = new Map<string, { value: MetaValue } | null>();
  for (const w of writes) {
    for (const r of w.deleteRecords ?? []) records.set(recordKey(r.type, r.uid), { type: r.type, uid: r.uid });
    for (const r of w.putRecords ?? []) records.set(recordKey(r.type, r.uid), { type: r.type, uid: r.uid, put: r });
    for (const seq of w.deleteOutbox ?? []) outbox.set(seq, null);
    for (const item of w.putOutbox ?? []) outbox.set(item.seq, item);
    for (const key of w.deleteMeta ?? []) meta.set(key, null);
    for (const [key, value] of Object.entries(w.putMeta ?? {})) meta.set(key, { value });
  }
  const entries = [...records.values()];
  const metaEntries = [...meta];
  return {
    deleteRecords: entries.filter((e) => e.put === undefined).map(({ type, uid }) => ({ type, uid })),
    putRecords: entries.flatMap((e) => (e.put === undefined ? [] : [e.put])),
    deleteOutbox: [...outbox].flatMap(([seq, item]) => (item === null ? [seq] : [])),
    putOutbox: [...outbox.values()].filter((item): item is OutboxItem => item !== null),
    deleteMeta: metaEntries.flatMap(([key, v]) => (v === null ? [key] : [])),
    putMeta: Object.fromEntries(metaEntries.flatMap(([key, v]) => (v === null ? [] : [[key, v.value]]))),
  };
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
