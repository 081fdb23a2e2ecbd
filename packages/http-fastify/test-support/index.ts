// Test support of the HTTP package: the one test build of the app and fakes of the engine.
// Outside `src`, so no production build contains it; reachable as
// `@calsync/http-fastify/test-support` under the `source` condition only.
export * from './fakes.js';
export * from './build.js';
