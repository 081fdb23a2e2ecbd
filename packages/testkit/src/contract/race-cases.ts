import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RecordRow, RowWrite, SyncUnitOfWork } from '@calsync/domain';
import { insertsOf, newRow, nextVersions, rowsOf, sampleFields, type StoreHarness } from './fixtures.js';
import type { ContractOptions } from './transaction-cases.js';

/** A counter row's next state: its title holds the count. */
async function counted(uow: SyncUnitOfWork, row: RecordRow | undefined, user: number): Promise<RowWrite> {
  const [version] = await nextVersions(uow, 1);
  const count = row === undefined ? 1 : Number(row.fields.title) + 1;
  const next = newRow('tasks', user, 'counter', version!, { ...sampleFields('tasks'), title: String(count) });
  return row === undefined ? (await insertsOf(uow, [next]))[0]! : { kind: 'update', row: { ...next, id: row.id, createdAt: row.createdAt } };
}

/**
 * Races over the store's lock, explored by fast-check's scheduler instead of sleeps: units of work
 * of three users each read a per-user counter, hand control to the scheduler, then write the count
 * plus one. The scheduler decides in which order the units start and when each one continues after
 * its read, so a store whose lock let a second unit of the same user in (or, on a single-session
 * store, any second unit) would show it here as an overlap or a lost update.
 */
export function raceCases(harness: () => StoreHarness, options: ContractOptions): void {
  describe('races over the per-user lock (fc.scheduler)', () => {
    it(
      options.singleSession
        ? 'units of work run one at a time, each user\'s read-modify-writes all kept, whatever the interleaving'
        : 'units of work of one user never overlap and lose no read-modify-write, whatever the interleaving',
      async () => {
        const { store, createUser } = harness();
        await fc.assert(
          fc.asyncProperty(fc.scheduler(), fc.array(fc.nat({ max: 2 }), { minLength: 2, maxLength: 6 }), async (s, picks) => {
            const users = [await createUser(), await createUser(), await createUser()];
            const inside = new Map<number, number>();
            let insideAll = 0;
            const overlaps: string[] = [];
            const units = picks.map((pick, i) => {
              const user = users[pick]!;
              return s.schedule(Promise.resolve(`start ${i}`)).then(() =>
                store.inUserTransaction(user, async (uow) => {
                  // The lock is held from the unit's first store call on (a store may send it with
                  // that call), so a unit counts as inside once its first read has answered.
                  const [row] = await rowsOf(uow, 'tasks', ['counter']);
                  if ((inside.get(user) ?? 0) > 0) overlaps.push(`unit ${i} read while user ${pick} had one running`);
                  if (options.singleSession && insideAll > 0) overlaps.push(`unit ${i} read while another unit was running`);
                  inside.set(user, (inside.get(user) ?? 0) + 1);
                  insideAll += 1;
                  await s.schedule(Promise.resolve(`unit ${i} continues after its read`));
                  await uow.applyWrites([await counted(uow, row, user)]);
                  inside.set(user, inside.get(user)! - 1);
                  insideAll -= 1;
                }),
              );
            });
            await s.waitFor(Promise.all(units));
            expect(overlaps).toEqual([]);
            for (const [k, user] of users.entries()) {
              const [row] = await store.inUserTransaction(user, (uow) => rowsOf(uow, 'tasks', ['counter']));
              const expected = picks.filter((p) => p === k).length;
              expect(row === undefined ? 0 : Number(row.fields.title)).toBe(expected);
            }
          }),
          { numRuns: options.raceRuns ?? 40 },
        );
      },
    );
  });
}
