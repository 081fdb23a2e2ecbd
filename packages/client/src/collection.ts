import type { FieldValue, RecordType } from '@calsync/domain/rules';
import type { LocalState } from './engine/local-state.js';
import { planPut, planRemove } from './engine/outbox.js';
import type { StoredRecord } from './store/local-store.js';
import { uuidv7 } from './uid.js';
import { checkPut } from './validation.js';

/** A record as the app sees it: its uid, the server version it is based on, and every field. */
export type LocalRecord<F> = F & {
  readonly uid: string;
  /** Null while the record was never synchronised. */
  readonly version: string | null;
};

/** Input of `put`: a uid (omit it to create with a new one) and the fields to set. */
export type PutInput<F> = Partial<F> & { readonly uid?: string };

/** Reads and writes of one record type; the same shape for calendars, events, tasks and reminders. */
export interface Collection<F> {
  /** Creates (no uid, or an unknown one) or patches a record; validated locally first. Returns the uid. */
  put(input: PutInput<F>): Promise<string>;
  /** Deletes a record and, like the server, its local descendants. */
  remove(uid: string): Promise<void>;
  /** The record, as a frozen snapshot (the same object until the record changes). */
  get(uid: string): LocalRecord<F> | undefined;
  /** Every local record of the type, in uid order, as `get` gives them. */
  list(): LocalRecord<F>[];
  /** Calls `listener` with the new list after every change of this type; returns the unsubscribe function. */
  subscribe(listener: (records: LocalRecord<F>[]) => void): () => void;
}

const byUid = (a: StoredRecord, b: StoredRecord): number => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);

/** The collection of `type` over the client's state; `wrote` is told after each local write. */
export function createCollection<F>(type: RecordType, state: LocalState, wrote: () => void, ready: () => void): Collection<F> {
  // A stored record is replaced, never changed, so its view is made once and shared (frozen: a
  // change goes through `put`). The list in uid order is kept between calls and brought up to
  // date from the uids the changes since touched (`changedSince`): a changed record's view is
  // replaced in place, a new one inserted where it belongs, a removed one taken out. It is sorted
  // again only after a reload or when most of it changed. Listing thousands of records at every
  // sync round otherwise sorted every one of them.
  const views = new WeakMap<StoredRecord, LocalRecord<F>>();
  const view = (r: StoredRecord): LocalRecord<F> => {
    let v = views.get(r);
    if (v === undefined) views.set(r, (v = Object.freeze({ ...(r.fields as F), uid: r.uid, version: r.version })));
    return v;
  };
  let sorted: { revision: number; readonly records: LocalRecord<F>[] } | null = null;
  const resort = (): LocalRecord<F>[] => [...state.records[type].values()].sort(byUid).map(view);
  const list = (): LocalRecord<F>[] => {
    const revision = state.revision(type);
    if (sorted === null) sorted = { revision, records: resort() };
    else if (sorted.revision !== revision) {
      const changed = state.changedSince(type, sorted.revision);
      if (changed === null || changed.size * 8 > sorted.records.length) sorted = { revision, records: resort() };
      else {
        for (const uid of changed) placeIn(sorted.records, uid, state.records[type].get(uid));
        sorted.revision = revision;
      }
    }
    return [...sorted.records];
  };
  /** Brings `uid`'s entry of the uid-ordered `records` (`byUid`'s order) in line with `current` (undefined: gone). */
  const placeIn = (records: LocalRecord<F>[], uid: string, current: StoredRecord | undefined): void => {
    let lo = 0;
    let hi = records.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (records[mid]!.uid < uid) lo = mid + 1;
      else hi = mid;
    }
    const present = lo < records.length && records[lo]!.uid === uid;
    if (current === undefined) {
      if (present) records.splice(lo, 1);
    } else if (present) records[lo] = view(current);
    else records.splice(lo, 0, view(current));
  };
  return {
    async put(input) {
      ready();
      const { uid = uuidv7(), ...fields } = input as { uid?: string } & Record<string, unknown>;
      const existing = state.records[type].get(uid);
      const patch: Record<string, FieldValue> = checkPut(type, uid, existing, fields);
      if (existing && Object.keys(patch).length === 0) return uid; // nothing changed: nothing to send
      await state.commit(planPut(state, type, uid, patch));
      wrote();
      return uid;
    },
    async remove(uid) {
      ready();
      const change = planRemove(state, type, uid);
      if (!change) return;
      await state.commit(change);
      wrote();
    },
    get(uid) {
      const r = state.records[type].get(uid);
      return r ? view(r) : undefined;
    },
    list,
    subscribe(listener) {
      return state.onChange((change) => {
        if (change.types.has(type)) listener(list());
      });
    },
  };
}
