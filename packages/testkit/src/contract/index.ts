export { runSyncStoreContract } from './sync-store-contract.js';
export type { ContractOptions } from './transaction-cases.js';
export type { MakeStore, StoreHarness } from './fixtures.js';
export { boundOf, noUids, receiptsOf, rowsOf, sampleFields } from './fixtures.js';
