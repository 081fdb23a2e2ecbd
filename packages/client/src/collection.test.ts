import { describe, expect, it } from 'vitest';
import { createCollection } from './collection.js';
import { LocalState } from './engine/local-state.js';
import type { StoredRecord } from './store/local-store.js';
import { MemoryStore } from './store/memory-store.js';

const stored = (uid: string, title: string, version: string | null = null): StoredRecord =>
  ({ type: 'tasks', uid, version, fields: { title, notes: null, dueAt: null, completed: false, completedAt: null, priority: null, parentTaskUid: null } }) as unknown as StoredRecord;

describe('a collection', () => {
  it('lists in uid order; a record unchanged since the last list is the same frozen object, a changed one a new one', async () => {
    const state = new LocalState(new MemoryStore(), 0);
    const tasks = createCollection<{ title: string }>('tasks', state, () => {}, () => {});
    await state.commit({ putRecords: [stored('b', 'B'), stored('a', 'A'), stored('c', 'C')] });
    const first = tasks.list();
    expect(first.map((t) => [t.uid, t.title])).toEqual([['a', 'A'], ['b', 'B'], ['c', 'C']]);
    expect(Object.isFrozen(first[0])).toBe(true);
    expect(tasks.get('a')).toBe(first[0]);
    // What a caller does to the array it got does not reach the next caller.
    first.pop();
    expect(tasks.list()).toHaveLength(3);

    await state.commit({ putRecords: [stored('b', 'B2', '7')], deleteRecords: [{ type: 'tasks', uid: 'c' }] });
    const second = tasks.list();
    expect(second.map((t) => [t.uid, t.title, t.version])).toEqual([['a', 'A', null], ['b', 'B2', '7']]);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).not.toBe(first[1]);
  });

  it('lists what a reload brought, and nothing after a wipe', async () => {
    const store = new MemoryStore();
    await store.write({ putRecords: [stored('x', 'X')] });
    const state = new LocalState(store, 0);
    const tasks = createCollection<{ title: string }>('tasks', state, () => {}, () => {});
    expect(tasks.list()).toEqual([]);
    await state.reload();
    expect(tasks.list().map((t) => t.uid)).toEqual(['x']);
    await state.wipe();
    expect(tasks.list()).toEqual([]);
  });

  it('gives a subscriber the list as it is after the change, whatever order the listeners were added in', async () => {
    const state = new LocalState(new MemoryStore(), 0);
    const seen: string[][] = [];
    // A listener added before the collection existed reads the collection too.
    state.onChange(() => seen.push(tasks.list().map((t) => t.title)));
    const tasks = createCollection<{ title: string }>('tasks', state, () => {}, () => {});
    tasks.list();
    await state.commit({ putRecords: [stored('a', 'one')] });
    await state.commit({ putRecords: [stored('a', 'two')] });
    expect(seen).toEqual([['one'], ['two']]);
  });
});
