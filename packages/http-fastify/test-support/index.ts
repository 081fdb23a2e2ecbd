// Test support of the HTTP package: fakes of the engine and a test app. Outside `src`, so no
// production build contains it; reachable as `@calsync/http-fastify/test-support` under the
// `source` condition only.
export * from './fakes.js';
export * from './test-app.js';
export * from './wired-app.js';
export * from './in-memory-sign-in.js';
