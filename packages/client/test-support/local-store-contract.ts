import { describe, expect, it } from 'vitest';
import type { LocalStore, OutboxItem, StoredRecord } from '../src/store/local-store.js';

const record = (uid: string, title: string, version: string | null = null): StoredRecord => ({ type: 'tasks', uid, fields: { title, completed: false, priority: null }, version });
const item = (seq: number, uid: string): OutboxItem => ({
  seq, type: 'tasks', uid, op: 'upsert', patch: { title: uid }, baseVersion: null, state: 'pending', attempts: 0, sent: null, waitForPull: false, lastError: null,
});

/**
 * The `LocalStore` contract: every store passes the same cases. `make` returns a fresh, empty
 * store; `reopen` returns a new store object over the same durable data (same name).
 */
export function runLocalStoreContract(name: string, make: () => { store: LocalStore; reopen: () => LocalStore }): void {
  describe(`LocalStore contract: ${name}`, () => {
    it('starts empty', async () => {
      const { store } = make();
      await store.open();
      expect(await store.load()).toEqual({ records: [], outbox: [], meta: {} });
      await store.close();
    });

    it('keeps records by (type, uid), the outbox in seq order, and metadata, across close and reopen', async () => {
      const { store, reopen } = make();
      await store.open();
      await store.write({
        putRecords: [record('a', 'A'), { ...record('a', 'event A'), type: 'events' }, record('b', 'B', '7')],
        putOutbox: [item(3, 'b'), item(1, 'a')],
        putMeta: { cursor: 'c.1', user: { id: 4, name: 'Ada' }, nextSeq: 4 },
      });
      await store.close();
      const again = reopen();
      await again.open();
      const loaded = await again.load();
      expect([...loaded.records].sort((x, y) => (x.type + x.uid).localeCompare(y.type + y.uid))).toEqual([
        { ...record('a', 'event A'), type: 'events' }, record('a', 'A'), record('b', 'B', '7'),
      ]);
      expect(loaded.outbox.map((i) => i.seq)).toEqual([1, 3]);
      expect(loaded.outbox[0]).toEqual(item(1, 'a'));
      expect(loaded.meta).toEqual({ cursor: 'c.1', user: { id: 4, name: 'Ada' }, nextSeq: 4 });
      await again.close();
    });

    it('applies deletes and puts of one write together; a put replaces the stored value', async () => {
      const { store } = make();
      await store.open();
      await store.write({ putRecords: [record('a', 'A'), record('b', 'B')], putOutbox: [item(1, 'a'), item(2, 'b')], putMeta: { x: 1, y: 2 } });
      await store.write({
        deleteRecords: [{ type: 'tasks', uid: 'a' }],
        putRecords: [record('b', 'B2', '9')],
        deleteOutbox: [1],
        putOutbox: [{ ...item(2, 'b'), state: 'inflight', sent: { op: 'upsert', baseVersion: '9', fields: { title: 'B2' } } }],
        deleteMeta: ['x'],
        putMeta: { y: 3 },
      });
      const loaded = await store.load();
      expect(loaded.records).toEqual([record('b', 'B2', '9')]);
      expect(loaded.outbox).toEqual([{ ...item(2, 'b'), state: 'inflight', sent: { op: 'upsert', baseVersion: '9', fields: { title: 'B2' } } }]);
      expect(loaded.meta).toEqual({ y: 3 });
      await store.close();
    });

    it('within one write, deletes apply before puts, and of two puts of one key the later stands', async () => {
      const { store } = make();
      await store.open();
      await store.write({ putRecords: [record('a', 'A')], putOutbox: [item(1, 'a')], putMeta: { x: 1 } });
      await store.write({
        deleteRecords: [{ type: 'tasks', uid: 'a' }],
        putRecords: [record('a', 'A2', '2'), record('a', 'A3', '3')],
        deleteOutbox: [1],
        putOutbox: [item(1, 'first'), item(1, 'second')],
        deleteMeta: ['x'],
        putMeta: { x: 5 },
      });
      const loaded = await store.load();
      expect(loaded.records).toEqual([record('a', 'A3', '3')]);
      expect(loaded.outbox).toEqual([item(1, 'second')]);
      expect(loaded.meta).toEqual({ x: 5 });
      await store.close();
    });

    it('never aliases: changing a written or loaded object changes nothing stored', async () => {
      const { store } = make();
      await store.open();
      const fields = { title: 'A', completed: false, priority: null } as Record<string, unknown>;
      await store.write({ putRecords: [{ type: 'tasks', uid: 'a', fields: fields as StoredRecord['fields'], version: null }] });
      fields.title = 'changed after write';
      const first = await store.load();
      (first.records[0]!.fields as Record<string, unknown>).title = 'changed after load';
      expect((await store.load()).records[0]!.fields.title).toBe('A');
      await store.close();
    });

    it('a write that cannot be stored changes nothing (atomic)', async () => {
      const { store } = make();
      await store.open();
      await store.write({ putRecords: [record('a', 'A')] });
      const bad = { putRecords: [record('b', 'B')], putMeta: { fn: (() => 1) as unknown as string } };
      await expect(store.write(bad)).rejects.toBeDefined();
      const loaded = await store.load();
      expect(loaded.records).toEqual([record('a', 'A')]);
      expect(loaded.meta).toEqual({});
      await store.close();
    });

    it('clear removes everything', async () => {
      const { store } = make();
      await store.open();
      await store.write({ putRecords: [record('a', 'A')], putOutbox: [item(1, 'a')], putMeta: { k: 'v' } });
      await store.clear();
      expect(await store.load()).toEqual({ records: [], outbox: [], meta: {} });
      await store.close();
    });
  });
}
