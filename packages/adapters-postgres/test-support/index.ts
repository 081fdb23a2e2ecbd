// Test support of the Postgres adapter: throw-away databases for tests and the pull-plan check.
// Outside `src`, so no production build contains it; reachable as `@calsync/adapters-postgres/test-support`
// under the `source` condition only (tests, benchmarks, diagnostics).
export * from './test-database.js';
export * from './pull-plan.js';
export * from './push-plan.js';
export * from './batch-plan.js';
export * from './item-results.js';
