import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildAppDeps } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { AppConfig } from '../src/config-types.js';
import { FixedLegacyStats, RecordingSyncApi, StandInAuth } from './fakes.js';

/**
 * A test app on fakes (the recording sync engine, fixed stats, `StandInAuth`), with config from
 * `env` (test mode, silent logs); `overrides` replaces any of the app's deps, and may be made from
 * the loaded configuration.
 */
export async function buildTestApp(
  env: Record<string, string> = {},
  overrides: Partial<BuildAppDeps> | ((config: AppConfig) => Partial<BuildAppDeps>) = {},
): Promise<{ app: FastifyInstance; sync: RecordingSyncApi; config: AppConfig }> {
  const { config } = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env });
  const sync = new RecordingSyncApi();
  const app = await buildApp({
    config,
    logger: false,
    sync,
    stats: new FixedLegacyStats(),
    auth: new StandInAuth(),
    readiness: async () => true,
    ...(typeof overrides === 'function' ? overrides(config) : overrides),
  });
  await app.ready();
  return { app, sync, config };
}
