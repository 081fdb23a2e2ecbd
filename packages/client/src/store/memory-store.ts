import { cloneStored } from './clone.js';
import { recordKey, type LocalStore, type MetaValue, type OutboxItem, type StoreContents, type StoredRecord, type StoreWrite } from './local-store.js';

/**
 * A `LocalStore` in memory: for Node, tests and server-side use. Its contents outlive `close`, so a
 * new client opened on the same instance sees what a restarted app would see on disk.
 */
export class MemoryStore implements LocalStore {
  readonly #records = new Map<string, StoredRecord>();
  readonly #outbox = new Map<number, OutboxItem>();
  readonly #meta = new Map<string, MetaValue>();

  async open(): Promise<void> {}

  async load(): Promise<StoreContents> {
    return cloneStored({
      records: [...this.#records.values()],
      outbox: [...this.#outbox.values()].sort((a, b) => a.seq - b.seq),
      meta: Object.fromEntries(this.#meta),
    });
  }

  async write(change: StoreWrite): Promise<void> {
    // Cloned before anything is applied: a value that cannot be cloned fails the whole write.
    const c = cloneStored(change);
    for (const r of c.deleteRecords ?? []) this.#records.delete(recordKey(r.type, r.uid));
    for (const r of c.putRecords ?? []) this.#records.set(recordKey(r.type, r.uid), r);
    for (const seq of c.deleteOutbox ?? []) this.#outbox.delete(seq);
    for (const item of c.putOutbox ?? []) this.#outbox.set(item.seq, item);
    for (const key of c.deleteMeta ?? []) this.#meta.delete(key);
    for (const [key, value] of Object.entries(c.putMeta ?? {})) this.#meta.set(key, value);
  }

  async clear(): Promise<void> {
    this.#records.clear();
    this.#outbox.clear();
    this.#meta.clear();
  }

  async close(): Promise<void> {}
}
