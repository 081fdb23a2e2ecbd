// The contract suites every adapter of a port runs (vitest `describe` blocks): `@calsync/testkit/contracts`.
// Apart from the root entry, so a service that only uses the in-memory stores does not need vitest.
export * from './contract/index.js';
export type { AuthStoresUnderTest, OpenAuthStores } from './auth/auth-contract-fixtures.js';
export * from './auth/user-store-contract.js';
export * from './auth/device-store-contract.js';
export * from './auth/session-store-contract.js';
export * from './auth/otp-store-contract.js';
export * from './feeds/feed-store-contract.js';
export * from './renders/render-store-contract.js';
