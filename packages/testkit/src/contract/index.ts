export { runSyncStoreContract } from './sync-store-contract.js';
export type { ContractOptions } from './transaction-cases.js';
export type { MakeStore, StoreHarness, UnsavedRow } from './fixtures.js';
export { boundOf, insertsOf, nextVersions, noUids, receiptsOf, rowsOf, sampleFields } from './fixtures.js';
export * from './retention-store-contract.js';
export * from './reminder-store-contract.js';
