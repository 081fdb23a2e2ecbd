import { defineConfig } from 'vitest/config';

// Browser tests (browser/): headless Debian Chromium driven by playwright-core against the real
// server process serving the built web client. Run by `pnpm test:browser` (which builds the web
// client first), not by `pnpm test`: they need Chromium and a build.
const resolve = { conditions: ['source', 'import', 'node', 'default'] };
export default defineConfig({
  resolve,
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    name: 'browser',
    include: ['browser/**/*.test.ts'],
    exclude: ['**/node_modules/**'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});
