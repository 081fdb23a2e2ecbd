import type { AuthService } from '@calsync/domain';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildAppDeps } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { FixedLegacyStats, headerSignIn, RecordingSyncApi } from './fakes.js';

/** A test app on fakes, with config from `env` (test mode, silent logs) and deps overridable. */
export async function buildTestApp(
  env: Record<string, string> = {},
  overrides: Partial<BuildAppDeps> = {},
): Promise<{ app: FastifyInstance; sync: RecordingSyncApi }> {
  const { config } = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env });
  const sync = new RecordingSyncApi();
  const app = await buildApp({
    config,
    logger: false,
    sync,
    stats: new FixedLegacyStats(),
    auth: {} as AuthService,
    readiness: async () => true,
    signIn: headerSignIn,
    ...overrides,
  });
  await app.ready();
  return { app, sync };
}
