import { defineConfig } from 'vitest/config';

// Two projects: fast unit/property tests, and database tests (*.pg.test.ts) that run
// against PGlite and, when TEST_DATABASE_URL is set, a real PostgreSQL server.
const resolve = { conditions: ['source', 'import', 'node', 'default'] };
export default defineConfig({
  resolve,
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    projects: [
      {
        resolve,
        ssr: { resolve: { conditions: ['source'] } },
        test: { name: 'unit', include: ['packages/*/src/**/*.test.ts'], exclude: ['**/*.pg.test.ts', '**/node_modules/**', '**/dist/**'], testTimeout: 30000 },
      },
      {
        resolve,
        ssr: { resolve: { conditions: ['source'] } },
        test: { name: 'db', include: ['packages/*/src/**/*.pg.test.ts'], exclude: ['**/node_modules/**', '**/dist/**'], testTimeout: 120000, hookTimeout: 120000, fileParallelism: false },
      },
    ],
  },
});
