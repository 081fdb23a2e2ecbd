import { describe, expect, it } from 'vitest';
import { T1, deferred, insertRows, newRow, pause, receiptsOf, rowsOf, sampleFields, type StoreHarness } from './fixtures.js';

/** Options of the contract suite. */
export interface ContractOptions {
  /**
   * The store runs every unit of work on one session (PGlite), so units of different users
   * serialize too: the "different users do not block each other" case is skipped.
   */
  readonly singleSession?: boolean;
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
          const [v] = await uow.nextVersions(1);
          await uow.applyWrites([{ kind: 'insert', row: newRow('tasks', user, 'rb-1', v!, sampleFields('tasks')) }]);
          await uow.saveReceipts([{ type: 'tasks', uid: 'rb-1', fingerprint: 'f', result: { ok: true } }]);
          await uow.insertConflicts([{ userId: user, type: 'tasks', uid: 'rb-1', winnerVersion: v!, loserSnapshot: { uid: 'rb-1', version: null }, createdAt: T1 }]);
          expect(await rowsOf(uow, 'tasks', ['rb-1'])).toHaveLength(1);
          throw failure;
        }),
      ).rejects.toBe(failure);
      await store.inUserTransaction(user, async (uow) => {
        expect(await rowsOf(uow, 'tasks', ['rb-1'])).toEqual([]);
        expect(await receiptsOf(uow, [{ type: 'tasks', uid: 'rb-1', fingerprint: 'f' }])).toEqual([]);
        expect(await uow.listUnresolvedConflicts(0, 50)).toEqual([]);
      });
    });

    it('two users may use the same uid without seeing or touching each other', async () => {
      const { store, createUser } = harness();
      const [a, b] = [await createUser(), await createUser()];
      const [rowA] = await insertRows(store, a, [{ type: 'tasks', uid: 'same', fields: sampleFields('tasks') }]);
      await store.inUserTransaction(b, async (uow) => expect(await rowsOf(uow, 'tasks', ['same'])).toEqual([]));
      const [rowB] = await insertRows(store, b, [{ type: 'tasks', uid: 'same', fields: { ...sampleFields('tasks'), title: 'B' } }]);
      expect(rowB!.id).not.toBe(rowA!.id);
      await store.inUserTransaction(b, async (uow) => {
        const [v] = await uow.nextVersions(1);
        await uow.applyWrites([{ kind: 'update', row: { ...rowB!, version: v!, fields: { ...rowB!.fields, title: 'B2' } } }]);
      });
      const [readA] = await store.inUserTransaction(a, (uow) => rowsOf(uow, 'tasks', ['same']));
      expect(readA).toEqual(rowA);
      await expect(
        store.inUserTransaction(b, (uow) => uow.applyWrites([{ kind: 'insert', row: newRow('tasks', a, 'x', 1n, sampleFields('tasks')) }])),
      ).rejects.toThrow();
    });

    it('units of work of one user serialize: the second starts after the first commits and sees its writes', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      const log: string[] = [];
      const firstEntered = deferred();
      const releaseFirst = deferred();
      const first = store.inUserTransaction(user, async (uow) => {
        log.push('first:start');
        firstEntered.resolve();
        await releaseFirst.promise;
        const [v] = await uow.nextVersions(1);
        await uow.applyWrites([{ kind: 'insert', row: newRow('tasks', user, 'ser-1', v!, sampleFields('tasks')) }]);
        log.push('first:end');
      });
      await firstEntered.promise;
      const second = store.inUserTransaction(user, async (uow) => {
        log.push('second:start');
        return rowsOf(uow, 'tasks', ['ser-1']);
      });
      await pause(300);
      expect(log).toEqual(['first:start']);
      releaseFirst.resolve();
      await first;
      const seen = await second;
      expect(log).toEqual(['first:start', 'first:end', 'second:start']);
      expect(seen.map((r) => r.uid)).toEqual(['ser-1']);
    });

    // Both outcomes are asserted: a multi-session store lets another user through, a single-session
    // store (PGlite) queues every unit of work behind the one that runs, as documented.
    it(
      options.singleSession
        ? 'a single-session store runs units of work of different users one after another'
        : 'units of work of different users do not block each other',
      async () => {
        const { store, createUser } = harness();
        const [a, b] = [await createUser(), await createUser()];
        const aEntered = deferred();
        const releaseA = deferred();
        const log: string[] = [];
        const long = store.inUserTransaction(a, async (uow) => {
          await uow.nextVersions(1);
          aEntered.resolve();
          await releaseA.promise;
          log.push('a:end');
        });
        await aEntered.promise;
        try {
          const other = store.inUserTransaction(b, async (uow) => {
            const [v] = await uow.nextVersions(1);
            await uow.applyWrites([{ kind: 'insert', row: newRow('tasks', b, 'nb-1', v!, sampleFields('tasks')) }]);
            log.push('b:end');
            return 'done';
          });
          if (options.singleSession) {
            await pause(300);
            expect(log).toEqual([]);
            releaseA.resolve();
            await expect(other).resolves.toBe('done');
            expect(log).toEqual(['a:end', 'b:end']);
          } else {
            const outcome = await Promise.race([other, pause(20_000).then(() => 'blocked')]);
            expect(outcome).toBe('done');
            expect(log).toEqual(['b:end']);
          }
        } finally {
          releaseA.resolve();
          await long;
        }
      },
    );
  });
}
