import { describe, expect, it } from 'vitest';
import { T1, deferred, insertRows, insertsOf, newRow, nextVersions, receiptsOf, rowsOf, sampleFields, type StoreHarness, fp } from './fixtures.js';

/** Options of the contract suite. */
export interface ContractOptions {
  /**
   * The store runs every unit of work on one session (PGlite), so units of different users
   * serialize too: the race cases then check that no two units overlap at all, and the
   * "different users do not block each other" case does not apply.
   */
  readonly singleSession?: boolean;
  /** How many interleavings the race cases try (fewer on a slow store). */
  readonly raceRuns?: number;
}

/** Atomicity, isolation and per-user serialization cases. */
export function transactionCases(harness: () => StoreHarness, options: ContractOptions): void {
  describe('units of work', () => {
    it('a unit of work that throws persists nothing: no row, receipt or conflict', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      const failure = new Error('work failed');
      await expect(
        store.inUserTransaction(user, async (uow) => {
          const { versions, conflictIds } = await uow.reserve({ versions: 1, conflictIds: 1 });
          const v = versions[0]!;
          await uow.applyWrites(await insertsOf(uow, [newRow('tasks', user, 'rb-1', v, sampleFields('tasks'))]));
          await uow.saveReceipts([{ type: 'tasks', uid: 'rb-1', fingerprint: fp('f'), result: { ok: true } }]);
          await uow.insertConflicts([{ conflictId: conflictIds[0]!, userId: user, type: 'tasks', uid: 'rb-1', winnerVersion: v, loserSnapshot: { uid: 'rb-1', version: null }, createdAt: T1 }]);
          expect(await rowsOf(uow, 'tasks', ['rb-1'])).toHaveLength(1);
          throw failure;
        }),
      ).rejects.toBe(failure);
      await store.inUserTransaction(user, async (uow) => {
        expect(await rowsOf(uow, 'tasks', ['rb-1'])).toEqual([]);
        expect(await receiptsOf(uow, [{ type: 'tasks', uid: 'rb-1', fingerprint: fp('f') }])).toEqual([]);
      });
      expect(await store.listUnresolvedConflicts(user, 0, 50)).toEqual([]);
    });

    it('two users may use the same uid without seeing or touching each other', async () => {
      const { store, createUser } = harness();
      const [a, b] = [await createUser(), await createUser()];
      const [rowA] = await insertRows(store, a, [{ type: 'tasks', uid: 'same', fields: sampleFields('tasks') }]);
      await store.inUserTransaction(b, async (uow) => expect(await rowsOf(uow, 'tasks', ['same'])).toEqual([]));
      const [rowB] = await insertRows(store, b, [{ type: 'tasks', uid: 'same', fields: { ...sampleFields('tasks'), title: 'B' } }]);
      expect(rowB!.id).not.toBe(rowA!.id);
      await store.inUserTransaction(b, async (uow) => {
        const [v] = await nextVersions(uow, 1);
        await uow.applyWrites([{ kind: 'update', row: { ...rowB!, version: v!, fields: { ...rowB!.fields, title: 'B2' } } }]);
      });
      const [readA] = await store.inUserTransaction(a, (uow) => rowsOf(uow, 'tasks', ['same']));
      expect(readA).toEqual(rowA);
      await expect(
        store.inUserTransaction(b, async (uow) => uow.applyWrites(await insertsOf(uow, [newRow('tasks', a, 'x', 1n, sampleFields('tasks'))]))),
      ).rejects.toThrow();
      // An update addressed by another user's row id (its uid taken for this user's) changes nothing.
      await expect(
        store.inUserTransaction(b, async (uow) => {
          const [v] = await nextVersions(uow, 1);
          await uow.applyWrites([{ kind: 'update', row: { ...rowA!, userId: b, version: v!, fields: { ...rowA!.fields, title: 'hijacked' } } }]);
        }),
      ).rejects.toThrow();
      expect((await store.inUserTransaction(a, (uow) => rowsOf(uow, 'tasks', ['same'])))[0]).toEqual(rowA);
    });

    it('a write that breaks a constraint fails its unit of work, even when the store sends it late, and nothing of the unit persists', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      await insertRows(store, user, [{ type: 'tasks', uid: 'dup', fields: sampleFields('tasks') }]);
      await expect(
        store.inUserTransaction(user, async (uow) => {
          const [v1, v2] = await nextVersions(uow, 2);
          await uow.applyWrites(await insertsOf(uow, [newRow('tasks', user, 'kept-out', v1!, sampleFields('tasks'))]));
          await uow.saveReceipts([{ type: 'tasks', uid: 'kept-out', fingerprint: fp('f'), result: 1 }]);
          // A second live row with the same (user, uid): the unique key refuses it.
          await uow.applyWrites(await insertsOf(uow, [newRow('tasks', user, 'dup', v2!, sampleFields('tasks'))]));
        }),
      ).rejects.toThrow();
      await store.inUserTransaction(user, async (uow) => {
        expect(await rowsOf(uow, 'tasks', ['kept-out'])).toEqual([]);
        expect(await receiptsOf(uow, [{ type: 'tasks', uid: 'kept-out', fingerprint: fp('f') }])).toEqual([]);
        expect((await rowsOf(uow, 'tasks', ['dup'])).map((r) => r.version)).toHaveLength(1);
      });
    });

    // A single-session store (PGlite) queues every unit behind the one that runs: the race cases
    // check that; there is nothing to assert here for it.
    if (!options.singleSession) {
      it('units of work of different users do not block each other', async () => {
        const { store, createUser } = harness();
        const [a, b] = [await createUser(), await createUser()];
        const aEntered = deferred();
        const releaseA = deferred();
        const log: string[] = [];
        const long = store.inUserTransaction(a, async (uow) => {
          await nextVersions(uow, 1);
          aEntered.resolve();
          await releaseA.promise;
          log.push('a:end');
        });
        await aEntered.promise;
        try {
          // Finishes while A's unit is held open; if B waited for A, this would never resolve (the case times out).
          const done = await store.inUserTransaction(b, async (uow) => {
            const [v] = await nextVersions(uow, 1);
            await uow.applyWrites(await insertsOf(uow, [newRow('tasks', b, 'nb-1', v!, sampleFields('tasks'))]));
            log.push('b:end');
            return 'done';
          });
          expect(done).toBe('done');
          expect(log).toEqual(['b:end']);
        } finally {
          releaseA.resolve();
          await long;
        }
      });
    }
  });
}
