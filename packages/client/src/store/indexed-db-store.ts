import { Dexie, type Table } from 'dexie';
import type { LocalStore, MetaValue, OutboxItem, StoreContents, StoredRecord, StoreWrite } from './local-store.js';

/** Where IndexedDB comes from; defaults to the browser's globals (tests pass fake-indexeddb's). */
export interface IndexedDbStoreOptions {
  /** An IDBFactory (fake-indexeddb's in Node tests). */
  readonly indexedDB?: unknown;
  /** The IDBKeyRange class that goes with it. */
  readonly IDBKeyRange?: unknown;
}

/** The Dexie database with its three tables. */
type CalsyncDexie = Dexie & {
  records: Table<StoredRecord, [string, string]>;
  outbox: Table<OutboxItem, number>;
  meta: Table<MetaRow, string>;
};

interface MetaRow {
  readonly key: string;
  readonly value: MetaValue;
}

/**
 * A `LocalStore` in the browser's IndexedDB, through Dexie: one database per name, three object
 * stores (records by [type+uid], outbox by seq, meta by key), every write one IndexedDB
 * transaction, so a closed tab or a crash never leaves half a write behind.
 */
export class IndexedDbStore implements LocalStore {
  readonly #db: CalsyncDexie;

  constructor(name: string, options: IndexedDbStoreOptions = {}) {
    const deps = options.indexedDB ? ({ indexedDB: options.indexedDB, IDBKeyRange: options.IDBKeyRange } as ConstructorParameters<typeof Dexie>[1]) : undefined;
    this.#db = new Dexie(name, deps) as CalsyncDexie;
    this.#db.version(1).stores({ records: '[type+uid]', outbox: 'seq', meta: 'key' });
  }

  async open(): Promise<void> {
    if (!this.#db.isOpen()) await this.#db.open();
  }

  async load(): Promise<StoreContents> {
    const db = this.#db;
    return db.transaction('r', db.records, db.outbox, db.meta, async () => {
      const [records, outbox, meta] = await Promise.all([db.records.toArray(), db.outbox.orderBy('seq').toArray(), db.meta.toArray()]);
      return { records, outbox, meta: Object.fromEntries(meta.map((m) => [m.key, m.value])) };
    });
  }

  async write(change: StoreWrite): Promise<void> {
    const db = this.#db;
    await db.transaction('rw', db.records, db.outbox, db.meta, async () => {
      if (change.deleteRecords?.length) await db.records.bulkDelete(change.deleteRecords.map((r) => [r.type, r.uid] as [string, string]));
      if (change.putRecords?.length) await db.records.bulkPut([...change.putRecords]);
      if (change.deleteOutbox?.length) await db.outbox.bulkDelete([...change.deleteOutbox]);
      if (change.putOutbox?.length) await db.outbox.bulkPut([...change.putOutbox]);
      if (change.deleteMeta?.length) await db.meta.bulkDelete([...change.deleteMeta]);
      const meta = Object.entries(change.putMeta ?? {}).map(([key, value]) => ({ key, value }));
      if (meta.length) await db.meta.bulkPut(meta);
    });
  }

  async clear(): Promise<void> {
    const db = this.#db;
    await db.transaction('rw', db.records, db.outbox, db.meta, async () => {
      await Promise.all([db.records.clear(), db.outbox.clear(), db.meta.clear()]);
    });
  }

  async close(): Promise<void> {
    this.#db.close();
  }
}
