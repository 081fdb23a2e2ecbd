import { defineConfig } from 'vitest/config';

// Three projects: fast unit/property tests; database tests (*.pg.test.ts) that run
// against PGlite and, when TEST_DATABASE_URL is set, a real PostgreSQL server; and the
// end-to-end tests (e2e/) that start the real server process. The db and e2e projects run one file
// at a time in one reused worker (isolate: false): importing the stack again for each file cost
// 5-14 s a file. Their files neither mock modules nor stub globals, so nothing carries over.
const resolve = { conditions: ['source', 'import', 'node', 'default'] };
export default defineConfig({
  resolve,
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    projects: [
      {
        resolve,
        ssr: { resolve: { conditions: ['source'] } },
        // The Redis server of TEST_REDIS_URL, when set, for the shared rate-limit counter test (inject('testRedisUrl')).
        test: { name: 'unit', provide: { testRedisUrl: process.env.TEST_REDIS_URL ?? null }, include: ['packages/*/src/**/*.test.ts', 'packages/*/src/**/*.test.tsx'], exclude: ['**/*.pg.test.ts', '**/node_modules/**', '**/dist/**'], testTimeout: 30000 },
      },
      {
        resolve,
        ssr: { resolve: { conditions: ['source'] } },
        // The database environment is chosen here, once: PGlite always, plus the PostgreSQL server
        // of TEST_DATABASE_URL when it is set (tests read it with inject('testDatabaseUrl')).
        test: { name: 'db', provide: { testDatabaseUrl: process.env.TEST_DATABASE_URL ?? null }, include: ['packages/*/src/**/*.pg.test.ts'], exclude: ['**/node_modules/**', '**/dist/**'], testTimeout: 120000, hookTimeout: 120000, fileParallelism: false, isolate: false },
      },
      {
        resolve,
        ssr: { resolve: { conditions: ['source'] } },
        // The real server process over HTTP (e2e/): slow to start, so generous timeouts, one file at a time.
        test: { name: 'e2e', include: ['e2e/**/*.test.ts'], exclude: ['**/node_modules/**'], testTimeout: 120000, hookTimeout: 180000, fileParallelism: false, isolate: false },
      },
    ],
  },
});
