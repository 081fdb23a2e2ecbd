import { afterAll, beforeAll, describe } from 'vitest';
import { announceCases } from './announce-cases.js';
import { conflictCases } from './conflict-cases.js';
import type { MakeStore, StoreHarness } from './fixtures.js';
import { raceCases } from './race-cases.js';
import { rowCases } from './row-cases.js';
import { transactionCases, type ContractOptions } from './transaction-cases.js';
import { versionCases } from './version-cases.js';
import { objectCases } from './object-cases.js';
import { pushGroupCases } from './push-group-cases.js';
import { seriesCases } from './series-cases.js';
import { windowCases } from './window-cases.js';

/**
 * The store contract suite: asserts the guarantees documented on `SyncStore` / `SyncUnitOfWork`
 * directly on a store, so the in-memory fake and the SQL adapters cannot drift apart. One store
 * is opened per suite (plus one fresh store for the empty-sequence case); each case makes its own users.
 */
export function runSyncStoreContract(name: string, makeStore: MakeStore, options: ContractOptions = {}): void {
  describe(`SyncStore contract: ${name}`, () => {
    let harness: StoreHarness | undefined;
    beforeAll(async () => {
      harness = await makeStore();
    });
    afterAll(async () => {
      await harness?.close();
    });
    const current = (): StoreHarness => {
      if (harness === undefined) throw new Error('store not open');
      return harness;
    };
    rowCases(current);
    versionCases(current, makeStore);
    conflictCases(current);
    transactionCases(current, options);
    raceCases(current, options);
    announceCases(current);
    windowCases(current);
    seriesCases(current);
    objectCases(current);
    pushGroupCases(current);
  });
}
