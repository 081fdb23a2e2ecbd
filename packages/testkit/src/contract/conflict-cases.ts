import { describe, expect, it } from 'vitest';
import type { ConflictRecord, NewConflict, SyncUnitOfWork } from '@calsync/domain';
import { perRecordType } from '@calsync/domain';
import { T1, T2, receiptsOf, type StoreHarness, fp } from './fixtures.js';

function conflict(userId: number, uid: string, winner: bigint): Omit<NewConflict, 'conflictId'> {
  return {
    userId,
    type: 'events',
    uid,
    winnerVersion: winner,
    loserSnapshot: { uid, version: null, title: 'lost edit', allDay: false, priority: 3, deleted: null },
    createdAt: T1,
  };
}

/** Inserts conflicts under ids drawn with `reserve`; returns them as stored. */
async function insertConflicts(uow: SyncUnitOfWork, conflicts: readonly Omit<NewConflict, 'conflictId'>[]): Promise<ConflictRecord[]> {
  const { conflictIds } = await uow.reserve({ conflictIds: conflicts.length });
  const stored = conflicts.map((c, i) => ({ ...c, conflictId: conflictIds[i]! }));
  await uow.insertConflicts(stored);
  return stored.map((c) => ({ ...c, resolvedAt: null }));
}

/** Push receipt and conflict record cases. */
export function conflictCases(harness: () => StoreHarness): void {
  describe('receipts and conflicts', () => {
    it('saves a receipt once: a second save of the same key keeps the first result', async () => {
      const { store, createUser } = harness();
      const [user, other] = [await createUser(), await createUser()];
      const key = { type: 'events' as const, uid: 'rcp-1', fingerprint: fp('f1') };
      const result = { uid: 'rcp-1', status: 'created', id: 7, version: '12', nested: { a: [1, 'x', null] } };
      await store.inUserTransaction(user, (uow) => uow.saveReceipts([{ ...key, result }]));
      await store.inUserTransaction(user, (uow) => uow.saveReceipts([{ ...key, result: { status: 'other' } }, { ...key, fingerprint: fp('f2'), result: 2 }]));
      await store.inUserTransaction(user, async (uow) => {
        const found = await receiptsOf(uow, [key, { ...key, fingerprint: fp('f2') }, { ...key, fingerprint: fp('f3') }, { ...key, type: 'tasks' }]);
        const byFingerprint = Object.fromEntries(found.map((r) => [r.fingerprint, r]));
        expect(found).toHaveLength(2);
        expect(byFingerprint[fp('f1')]).toEqual({ ...key, result });
        expect(byFingerprint[fp('f2')]!.result).toBe(2);
        expect(await receiptsOf(uow, [])).toEqual([]);
      });
      await store.inUserTransaction(other, async (uow) => expect(await receiptsOf(uow, [key])).toEqual([]));
    });

    it('a receipt saved in a unit of work is found by a later prefetch of the same unit, and survives its commit intact', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      // Quotes, backslashes, a dollar-quote look-alike and non-ASCII text (in the uid and the result): a store may carry
      // receipts inside another statement's text, and they must come back byte for byte.
      const key = { type: 'tasks' as const, uid: "rw-'1\\", fingerprint: fp('f$$x') };
      const result = { uid: key.uid, status: 'created', note: "it's \\ \"quoted\" $$ é 😀", version: '9007199254740993' };
      await store.inUserTransaction(user, async (uow) => {
        await uow.saveReceipts([{ ...key, result }]);
        expect(await receiptsOf(uow, [key])).toEqual([{ ...key, result }]);
      });
      await store.inUserTransaction(user, async (uow) => expect(await receiptsOf(uow, [key])).toEqual([{ ...key, result }]));
    });

    it('inserts conflicts with increasing ids, then locks, resolves and pages them per user', async () => {
      const { store, createUser } = harness();
      const [user, other] = [await createUser(), await createUser()];
      const inserted = await store.inUserTransaction(user, (uow) =>
        insertConflicts(uow, [conflict(user, 'c-1', 11n), conflict(user, 'c-2', 12n), conflict(user, 'c-3', 9007199254740993n)]),
      );
      const [theirs] = await store.inUserTransaction(other, (uow) => insertConflicts(uow, [conflict(other, 'c-1', 5n)]));
      expect(inserted.map((c) => c.uid)).toEqual(['c-1', 'c-2', 'c-3']);
      expect(inserted[0]).toEqual({ ...conflict(user, 'c-1', 11n), conflictId: inserted[0]!.conflictId, resolvedAt: null });
      expect(inserted[2]!.winnerVersion).toBe(9007199254740993n);
      expect(inserted[1]!.conflictId > inserted[0]!.conflictId && inserted[2]!.conflictId > inserted[1]!.conflictId).toBe(true);
      const [c1, c2, c3] = inserted.map((c) => c.conflictId) as [number, number, number];

      await store.inUserTransaction(user, async (uow) => {
        expect(await uow.lockConflict(c2)).toEqual(inserted[1]);
        expect(await uow.lockConflict(theirs!.conflictId)).toBeNull();
        expect(await uow.lockConflict(c3 + 1000)).toBeNull();
        await uow.markConflictResolved(c2, T2);
        expect((await uow.lockConflict(c2))!.resolvedAt).toBe(T2);
      });
      expect((await store.listUnresolvedConflicts(user, 0, 50)).map((c) => c.conflictId)).toEqual([c1, c3]);
      expect((await store.listUnresolvedConflicts(user, 0, 1)).map((c) => c.conflictId)).toEqual([c1]);
      expect((await store.listUnresolvedConflicts(user, c1, 1)).map((c) => c.conflictId)).toEqual([c3]);
      expect(await store.listUnresolvedConflicts(user, c3, 50)).toEqual([]);
      await store.inUserTransaction(other, (uow) => uow.markConflictResolved(c1, T2));
      expect((await store.listUnresolvedConflicts(other, 0, 50)).map((c) => c.uid)).toEqual(['c-1']);
      await store.inUserTransaction(user, async (uow) => expect((await uow.lockConflict(c1))!.resolvedAt).toBeNull());
    });

    it("a pull read reports the user's newest unresolved conflict id: none, the newest, the next newest once it is resolved, never another user's", async () => {
      const { store, createUser } = harness();
      const [user, other] = [await createUser(), await createUser()];
      const newest = (userId: number) => store.inUserTransaction(userId, async (uow) => (await uow.readChangesSince(perRecordType(() => 0n), 10)).newestConflictId);
      expect(await newest(user)).toBeNull();
      const [c1, c2] = (await store.inUserTransaction(user, (uow) => insertConflicts(uow, [conflict(user, 'n-1', 3n), conflict(user, 'n-2', 4n)]))).map((c) => c.conflictId);
      const [theirs] = await store.inUserTransaction(other, (uow) => insertConflicts(uow, [conflict(other, 'n-1', 5n)]));
      expect(await newest(user)).toBe(c2);
      expect(await newest(other)).toBe(theirs!.conflictId);
      await store.inUserTransaction(user, (uow) => uow.markConflictResolved(c2!, T2));
      expect(await newest(user)).toBe(c1);
      await store.inUserTransaction(user, (uow) => uow.markConflictResolved(c1!, T2));
      expect(await newest(user)).toBeNull();
      expect(await newest(other)).toBe(theirs!.conflictId);
    });
  });
}
