// Test support of the client package: the in-memory service clients talk to, client helpers and
// the LocalStore contract suite. Outside `src`, so no production build contains it; reachable as
// `@calsync/client/test-support` under the `source` condition only.
export * from './in-memory-service.js';
export * from './clients.js';
export * from './local-store-contract.js';
export * from './faulty-fetch.js';
export * from './checking-sync-api.js';
