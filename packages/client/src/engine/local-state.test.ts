import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientOf, signIn, startInMemoryService, type InMemoryService } from '../../test-support/index.js';
import { mergeWrites, type LocalStore, type OutboxItem, type StoredRecord, type StoreWrite } from '../store/local-store.js';
import { MemoryStore } from '../store/memory-store.js';
import { LocalState } from './local-state.js';

/** A memory store that keeps every write it was given (and can be told to refuse the next one). */
class RecordingStore extends MemoryStore implements LocalStore {
  readonly writes: StoreWrite[] = [];
  refuseNext = false;
  override async write(change: StoreWrite): Promise<void> {
    this.writes.push(change);
    if (this.refuseNext) {
      this.refuseNext = false;
      throw new Error('disk full');
    }
    await super.write(change);
  }
}

const record = (uid: string, title: string): StoredRecord => ({ type: 'tasks', uid, fields: { title }, version: null });
const item = (seq: number, uid: string): OutboxItem => ({ seq, type: 'tasks', uid, op: 'upsert', patch: { title: uid }, baseVersion: null, state: 'pending', attempts: 0, sent: null, waitForPull: false, lastError: null });

describe('mergeWrites', () => {
  it('one write of the merge leaves a store as the writes one after another do', async () => {
    const uid = fc.constantFrom('a', 'b', 'c');
    const write: fc.Arbitrary<StoreWrite> = fc.record(
      {
        putRecords: fc.array(fc.tuple(uid, fc.string({ maxLength: 3 })).map(([u, t]) => record(u, t)), { maxLength: 3 }),
        deleteRecords: fc.array(uid.map((u) => ({ type: 'tasks' as const, uid: u })), { maxLength: 2 }),
        putOutbox: fc.array(fc.tuple(fc.integer({ min: 1, max: 3 }), uid).map(([s, u]) => item(s, u)), { maxLength: 3 }),
        deleteOutbox: fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 2 }),
        putMeta: fc.dictionary(fc.constantFrom('k1', 'k2', 'k3'), fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.constant(null))),
        deleteMeta: fc.array(fc.constantFrom('k1', 'k2', 'k3'), { maxLength: 2 }),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 6 }), async (writes) => {
        const oneByOne = new MemoryStore();
        for (const w of writes) await oneByOne.write(w);
        const merged = new MemoryStore();
        await merged.write(mergeWrites(writes));
        const sorted = (s: Awaited<ReturnType<MemoryStore['load']>>) => ({ ...s, records: [...s.records].sort((x, y) => x.uid.localeCompare(y.uid)) });
        expect(sorted(await merged.load())).toEqual(sorted(await oneByOne.load()));
      }),
      { numRuns: 500 },
    );
  });
});

describe('LocalState writes', () => {
  it('commits made while a write is on its way join one write; awaited commits go one by one', async () => {
    const store = new RecordingStore();
    const state = new LocalState(store, 0);
    await state.commit({ putRecords: [record('a', 'A')] });
    const joined = [state.commit({ putRecords: [record('b', 'B')] }), state.commit({ deleteRecords: [{ type: 'tasks', uid: 'a' }] }), state.commit({ putRecords: [record('a', 'A again')] })];
    await Promise.all(joined);
    expect(store.writes).toHaveLength(2);
    expect((await store.load()).records.map((r) => [r.uid, r.fields.title]).sort()).toEqual([['a', 'A again'], ['b', 'B']]);
  });

  it('a joint write that fails fails each commit in it; the next commit goes alone', async () => {
    const store = new RecordingStore();
    const state = new LocalState(store, 0);
    store.refuseNext = true;
    const results = await Promise.allSettled([state.commit({ putRecords: [record('a', 'A')] }), state.commit({ putRecords: [record('b', 'B')] })]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await state.commit({ putRecords: [record('c', 'C')] });
    expect(store.writes).toHaveLength(2);
    expect((await store.load()).records.map((r) => r.uid)).toEqual(['c']);
  });

  it('a commit after a wipe does not join a write from before it (the clear would erase it)', async () => {
    const store = new RecordingStore();
    const state = new LocalState(store, 0);
    const before = state.commit({ putRecords: [record('old', 'Old')] });
    const wiped = state.wipe();
    const after = state.commit({ putRecords: [record('new', 'New')] });
    await Promise.all([before, wiped, after]);
    expect((await store.load()).records.map((r) => r.uid)).toEqual(['new']);
  });
});

describe('store writes of a sync round', () => {
  let service: InMemoryService;
  beforeEach(async () => {
    service = await startInMemoryService();
  });
  afterEach(async () => {
    await service.close();
  });

  it('a round that pushes one edit and pulls one page writes the store three times: before sending, the answer, the pull', async () => {
    const store = new RecordingStore();
    const a = await clientOf(service, { store, debounceMs: 1e9 });
    await signIn(service, a, '+15550003001');
    await a.sync();
    const calendarUid = a.calendars.list()[0]!.uid;
    const uid = await a.events.put({ calendarUid, title: 'Dentist', startTime: '2030-01-07T09:00:00.000Z', endTime: '2030-01-07T10:00:00.000Z' });
    const from = store.writes.length;
    await a.sync();
    const round = store.writes.slice(from);
    expect(round).toHaveLength(3);
    // The answer and its bookkeeping: the outbox item gone, the record at its version, and the version this device wrote.
    expect(round[1]!.deleteOutbox).toHaveLength(1);
    expect(round[1]!.putRecords?.map((r) => r.uid)).toEqual([uid]);
    expect(Object.keys(round[1]!.putMeta ?? {}).some((k) => k.startsWith('writtenVersions:events:'))).toBe(true);
    // The last page and the cursor together.
    expect(round[2]!.putMeta?.cursor).toEqual(expect.any(String));
    expect(a.events.get(uid)?.version).toMatch(/^[0-9]+$/);
    await a.close();
  });
});
