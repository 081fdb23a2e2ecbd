import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['e2e/openapi-client/api.d.ts', '**/dist/**', '**/node_modules/**', '**/.data/**', 'bench/results/**', 'packages/*/src/**/*.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The dependency rule (docs/architecture.md): the domain is framework-free.
    files: ['packages/domain/src/**/*.ts'],
    ignores: ['packages/domain/src/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-imports': ['error', { patterns: ['fastify', '@fastify/*', 'kysely', 'pg', '@electric-sql/*', '@calsync/*', 'pino', 'ioredis', '**/test-support/**'] }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'configuration is read in http-fastify/src/config only' }],
    },
  },
  {
    // The wire schemas are shared with the client SDK: TypeBox and the domain only, no server code.
    files: ['packages/wire/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['fastify', '@fastify/*', 'kysely', 'pg', '@electric-sql/*', 'pino', 'ioredis', '@calsync/http-fastify', '@calsync/adapters-*', '@calsync/testkit', '**/test-support/**'] }],
    },
  },
  {
    // Test support stays out of production builds: production sources never import it.
    files: ['packages/*/src/**/*.ts'],
    ignores: ['packages/*/src/**/*.test.ts', 'packages/domain/src/**', 'packages/wire/src/**', 'packages/testkit/src/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['@calsync/testkit', '@calsync/*/test-support', '**/test-support/**'] }],
    },
  },
  {
    // Adapters import the domain and their own technology only: never HTTP, another adapter or test support.
    files: ['packages/adapters-*/src/**/*.ts'],
    ignores: ['packages/adapters-*/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['fastify', '@fastify/*', '@calsync/*', '!@calsync/domain', '**/test-support/**'] }],
    },
  },
  {
    // adapters-node is Node's own technology (node:crypto, the clock, fast-jwt): no database or cache drivers either.
    files: ['packages/adapters-node/src/**/*.ts'],
    ignores: ['packages/adapters-node/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['fastify', '@fastify/*', 'kysely', 'pg', '@electric-sql/*', 'ioredis', 'pino', '@calsync/*', '!@calsync/domain', '**/test-support/**'] }],
    },
  },
  {
    // The db and e2e projects reuse one worker across files (vitest.config.ts, isolate: false):
    // a module mock, a stubbed global or fake timers would carry over into the next file.
    files: ['packages/*/src/**/*.pg.test.ts', 'e2e/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        ...['mock', 'doMock', 'stubGlobal', 'stubEnv', 'useFakeTimers'].map((property) => ({ object: 'vi', property, message: 'these files share one worker (isolate: false): nothing may carry over' })),
      ],
    },
  },
);
