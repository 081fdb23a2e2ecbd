import { perRecordType, RECORD_TYPES, type RecordType } from '@calsync/domain/rules';
import { mergeWrites, type LocalStore, type MetaValue, type OutboxItem, type StoredRecord, type StoreWrite } from '../store/local-store.js';

/** Metadata keys the client keeps in its store. */
export const META = {
  cursor: 'cursor',
  deviceUid: 'deviceUid',
  accessToken: 'accessToken',
  refreshToken: 'refreshToken',
  user: 'user',
  nextSeq: 'nextSeq',
  lastSyncAt: 'lastSyncAt',
  /** Set when a default change of this device was answered; cleared by the next complete pull. */
  demotionsUnpulled: 'demotionsUnpulled',
  /** `writtenVersions:<type>:<uid>`: the last versions this device's pushes wrote of a record (alone, the map an older client kept). */
  writtenVersions: 'writtenVersions',
  /** `conflictSides:<conflictId>`: the side of a conflict this device's own push made (alone, the map an older client kept). */
  conflictSides: 'conflictSides',
  /** The highest conflictId listed so far (the conflict feed's mark). */
  conflictsAfterId: 'conflictsAfterId',
  /** Set when a conflict may have been made since the last listing; cleared by the next listing. */
  conflictsDue: 'conflictsDue',
  /** Ids of conflicts this device's own stale pushes made that lost nothing, until dismissed on the server (stale-writes.ts). */
  settledConflicts: 'settledConflicts',
} as const;

/**
 * Outbox seqs are spread over this many slots, one drawn at random per client instance (per tab):
 * two tabs share a slot with odds of one in about a million, and only then can their concurrent
 * writes meet on one seq. Seqs stay far below 2^53 (2^33 writes per slot).
 */
const SEQ_SLOTS = 2 ** 20;

/** Changes of a type whose uids `changedSince` can still tell: a reader further behind reads everything again. */
const JOURNAL_LENGTH = 32;

/** Which parts of the state a commit touched, for listeners. */
export interface StateChange {
  readonly types: ReadonlySet<RecordType>;
  readonly outbox: boolean;
  readonly meta: boolean;
}

/**
 * The client's working copy of its store, in memory, so reads are synchronous. Every change goes
 * through `commit`: it applies to memory at once (later computations see it) and queues the same
 * change for the store, whose writes therefore land in the same order. Awaiting `commit` means
 * the change is durable.
 */
export class LocalState {
  readonly records: Record<RecordType, Map<string, StoredRecord>> = perRecordType(() => new Map());
  /** In seq order. */
  outbox: OutboxItem[] = [];
  readonly meta = new Map<string, MetaValue>();
  readonly #store: LocalStore;
  readonly #listeners = new Set<(change: StateChange) => void>();
  readonly #revisions: Record<RecordType, number> = perRecordType(() => 0);
  /** Per type, its latest changes, oldest first: the revision each made and the uids it touched (null: any record, a reload or wipe). */
  readonly #journal: Record<RecordType, { revision: number; uids: ReadonlySet<string> | null }[]> = perRecordType(() => []);
  #queue: Promise<void> = Promise.resolve();
  /** The write not yet handed to the store, which commits join (see #enqueue). */
  #pending: { changes: StoreWrite[]; written: Promise<void> } | null = null;
  /** This instance's residue of outbox seqs modulo SEQ_SLOTS (see nextSeq). */
  readonly #seqSlot: number;

  constructor(store: LocalStore, seqSlot = Math.floor(Math.random() * SEQ_SLOTS)) {
    this.#store = store;
    this.#seqSlot = seqSlot;
  }

  /** Replaces memory with what the store holds. */
  async reload(): Promise<void> {
    await this.#queue;
    const contents = await this.#store.load();
    for (const type of RECORD_TYPES) this.records[type].clear();
    for (const r of contents.records) this.records[r.type].set(r.uid, r);
    this.outbox = [...contents.outbox];
    this.meta.clear();
    for (const [k, v] of Object.entries(contents.meta)) this.meta.set(k, v);
    this.#emit({ types: new Set(RECORD_TYPES), outbox: true, meta: true });
  }

  /** A string metadata value, or undefined. */
  text(key: string): string | undefined {
    const v = this.meta.get(key);
    return typeof v === 'string' ? v : undefined;
  }

  /**
   * The next outbox sequence number (reserved at once; persisted by the commit that uses it):
   * above every seq this instance has seen, and ending in this instance's slot. Tabs of one
   * browser share one store but each counts in its own memory; two tabs writing before either has
   * reloaded the other's write would otherwise take the same seq, and the second outbox put would
   * replace the first tab's write, which would then never be pushed.
   */
  nextSeq(): number {
    const last = this.meta.get(META.nextSeq);
    const fromItems = this.outbox.reduce((m, i) => Math.max(m, i.seq + 1), 1);
    const floor = Math.max(typeof last === 'number' ? last : 1, fromItems);
    let seq = Math.floor(floor / SEQ_SLOTS) * SEQ_SLOTS + this.#seqSlot;
    if (seq < floor) seq += SEQ_SLOTS;
    this.meta.set(META.nextSeq, seq + 1);
    return seq;
  }

  /** Applies `change` to memory now and to the store in order; resolves once it is durable. */
  commit(change: StoreWrite): Promise<void> {
    const touched = new Map<RecordType, Set<string>>();
    const touch = (type: RecordType, uid: string): void => {
      let uids = touched.get(type);
      if (uids === undefined) touched.set(type, (uids = new Set()));
      uids.add(uid);
    };
    for (const r of change.deleteRecords ?? []) {
      this.records[r.type].delete(r.uid);
      touch(r.type, r.uid);
    }
    for (const r of change.putRecords ?? []) {
      this.records[r.type].set(r.uid, r);
      touch(r.type, r.uid);
    }
    const outboxTouched = Boolean(change.putOutbox?.length || change.deleteOutbox?.length);
    if (outboxTouched) {
      const gone = new Set(change.deleteOutbox ?? []);
      const put = new Map((change.putOutbox ?? []).map((i) => [i.seq, i]));
      const next = this.outbox.filter((i) => !gone.has(i.seq) && !put.has(i.seq));
      next.push(...put.values());
      next.sort((a, b) => a.seq - b.seq);
      this.outbox = next;
    }
    for (const key of change.deleteMeta ?? []) this.meta.delete(key);
    for (const [k, v] of Object.entries(change.putMeta ?? {})) this.meta.set(k, v);
    // nextSeq lives in memory first (see nextSeq); every write carries its current value.
    const nextSeq = this.meta.get(META.nextSeq);
    const durable = nextSeq === undefined ? change : { ...change, putMeta: { ...change.putMeta, [META.nextSeq]: nextSeq } };
    const written = this.#enqueue(durable);
    this.#emit({ types: new Set(touched.keys()), outbox: outboxTouched, meta: Boolean(change.putMeta || change.deleteMeta) }, touched);
    return written;
  }

  /**
   * Queues `change` for the store. While an earlier write is still on its way, the changes
   * committed meanwhile join into one write (`mergeWrites`) that goes once the store is free: a
   * round's answer and the bookkeeping after it, or a burst of edits, are one transaction of an
   * IndexedDB store instead of one each. Each commit's promise is its joint write's.
   */
  #enqueue(change: StoreWrite): Promise<void> {
    const pending = this.#pending;
    if (pending !== null) {
      pending.changes.push(change);
      return pending.written;
    }
    const next: { changes: StoreWrite[]; written: Promise<void> } = { changes: [change], written: Promise.resolve() };
    this.#pending = next;
    next.written = this.#queue.then(() => {
      // From here on, a commit starts a write of its own.
      if (this.#pending === next) this.#pending = null;
      return this.#store.write(mergeWrites(next.changes));
    });
    this.#queue = next.written.catch(() => undefined);
    return next.written;
  }

  /** Empties memory and the store (sign-out, another user signing in): nothing is left. */
  async wipe(): Promise<void> {
    for (const type of RECORD_TYPES) this.records[type].clear();
    this.outbox = [];
    this.meta.clear();
    // A write still waiting goes before the clear; a commit after the wipe must not join it.
    this.#pending = null;
    const done = this.#queue.then(() => this.#store.clear());
    this.#queue = done.catch(() => undefined);
    this.#emit({ types: new Set(RECORD_TYPES), outbox: true, meta: true });
    await done;
  }

  /** Waits until every queued write reached the store. */
  async flushed(): Promise<void> {
    await this.#queue;
  }

  /** Calls `listener` after every change; returns the unsubscribe function. */
  onChange(listener: (change: StateChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** How many changes of `type` memory has seen: a reader's cache of that type is current while it is unchanged. */
  revision(type: RecordType): number {
    return this.#revisions[type];
  }

  /**
   * The uids of `type` that changes after `revision` touched (put or deleted), or null when the
   * journal no longer reaches back that far or one of those changes was a reload or wipe: then
   * any record may have changed.
   */
  changedSince(type: RecordType, revision: number): ReadonlySet<string> | null {
    const journal = this.#journal[type];
    const from = journal.findIndex((entry) => entry.revision === revision + 1);
    if (from < 0) return revision === this.#revisions[type] ? new Set() : null;
    const uids = new Set<string>();
    for (const entry of journal.slice(from)) {
      if (entry.uids === null) return null;
      for (const uid of entry.uids) uids.add(uid);
    }
    return uids;
  }

  /** Counts the change in each type's revision and journal (`touched`: its uids; absent, any record), then tells the listeners. */
  #emit(change: StateChange, touched?: ReadonlyMap<RecordType, ReadonlySet<string>>): void {
    for (const type of change.types) {
      const revision = (this.#revisions[type] += 1);
      const journal = this.#journal[type];
      journal.push({ revision, uids: touched?.get(type) ?? null });
      if (journal.length > JOURNAL_LENGTH) journal.shift();
    }
    for (const l of [...this.#listeners]) l(change);
  }
}
