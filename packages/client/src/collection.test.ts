import fc from 'fast-check';
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

  it('lists what a full sort would after any run of puts, deletes and reloads, kept current change by change', async () => {
    // Uids of differing lengths around 200 records there from the start, so that most changes are
    // few beside the list (brought up to date in place) and some are many (sorted again).
    const uidOf = (i: number): string => `${'abcdefgh'[i % 8]}${Math.floor(i / 8)}`;
    const uidArb = fc.integer({ min: 0, max: 400 }).map(uidOf);
    const op = fc.oneof(
      { arbitrary: fc.record({ kind: fc.constant('put' as const), uids: fc.uniqueArray(uidArb, { minLength: 1, maxLength: 4 }), title: fc.string({ maxLength: 3 }) }), weight: 6 },
      fc.record({ kind: fc.constant('put' as const), uids: fc.uniqueArray(uidArb, { minLength: 1, maxLength: 60 }), title: fc.string({ maxLength: 3 }) }),
      { arbitrary: fc.record({ kind: fc.constant('delete' as const), uids: fc.uniqueArray(uidArb, { minLength: 1, maxLength: 5 }) }), weight: 3 },
      { arbitrary: fc.record({ kind: fc.constant('list' as const) }), weight: 4 },
      fc.record({ kind: fc.constant('reload' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 80 }), async (ops) => {
        const store = new MemoryStore();
        const state = new LocalState(store, 0);
        const tasks = createCollection<{ title: string }>('tasks', state, () => {}, () => {});
        await state.commit({ putRecords: Array.from({ length: 200 }, (_, i) => stored(uidOf(2 * i), 'first')) });
        let before = tasks.list();
        for (const o of ops) {
          if (o.kind === 'put') await state.commit({ putRecords: o.uids.map((u) => stored(u, o.title)) });
          else if (o.kind === 'delete') await state.commit({ deleteRecords: o.uids.map((uid) => ({ type: 'tasks', uid })) });
          else if (o.kind === 'reload') await state.reload();
          else {
            const now = tasks.list();
            const expected = [...state.records.tasks.values()].sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
            expect(now.map((t) => [t.uid, t.title])).toEqual(expected.map((r) => [r.uid, (r.fields as { title: string }).title]));
            // A record no change touched keeps its view.
            const earlier = new Map(before.map((t) => [t.uid, t]));
            for (const t of now) if (state.records.tasks.get(t.uid) === undefined) throw new Error(`listed ${t.uid}, which is gone`);
            for (const t of now) {
              const old = earlier.get(t.uid);
              if (old !== undefined && old.title === t.title && old.version === t.version) expect(tasks.get(t.uid)).toBe(t);
            }
            before = now;
          }
        }
        expect(tasks.list().map((t) => t.uid)).toEqual([...state.records.tasks.keys()].sort());
      }),
      { numRuns: 300 },
    );
  });

  it('sorts again when the changes since the last list are more than its journal keeps', async () => {
    const state = new LocalState(new MemoryStore(), 0);
    const tasks = createCollection<{ title: string }>('tasks', state, () => {}, () => {});
    await state.commit({ putRecords: Array.from({ length: 500 }, (_, i) => stored(`u${String(i).padStart(3, '0')}`, 'x')) });
    expect(tasks.list()).toHaveLength(500);
    for (let i = 0; i < 40; i++) await state.commit({ putRecords: [stored(`n${i}`, 'new')], deleteRecords: [{ type: 'tasks', uid: `u${String(i).padStart(3, '0')}` }] });
    expect(state.changedSince('tasks', state.revision('tasks') - 40)).toBeNull();
    expect(state.changedSince('tasks', state.revision('tasks') - 2)).toEqual(new Set(['n38', 'u038', 'n39', 'u039']));
    const listed = tasks.list().map((t) => t.uid);
    expect(listed).toEqual([...state.records.tasks.keys()].sort());
    expect(listed).toHaveLength(500);
  });
});
