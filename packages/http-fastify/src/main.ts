import {
  PostgresAuthStore,
  PostgresLegacyStatsStore,
  PostgresSyncStore,
  PostgresUserStore,
  ScryptPasswordHasher,
  createDatabase,
  migrateToLatest,
  type Database,
} from '@calsync/adapters-postgres';
import { HttpSmsSender, LoggingSmsSender } from '@calsync/adapters-sms';
import { CursorCodec, SyncService, type SmsSender } from '@calsync/domain';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import { buildApp } from './app.js';
import { createAuthModule } from './auth/wiring.js';
import { ConfigError, loadConfig } from './config.js';
import type { AppConfig } from './config-types.js';
import { CryptoRandom, SystemClock } from './system.js';

/** How long shutdown may take (drain requests, close the database) before the process exits anyway. */
const SHUTDOWN_TIMEOUT_MS = 10_000;

function smsSenderFor(config: AppConfig, logger: Logger): SmsSender {
  if (config.smsGateway) return new HttpSmsSender(config.smsGateway);
  // loadConfig already refused production without a gateway.
  return new LoggingSmsSender(logger.child({ component: 'sms' }));
}

function printHowToSignIn(config: AppConfig, address: string): void {
  const base = address.replace('://0.0.0.0', '://localhost').replace('://[::]', '://localhost');
  const lines = [
    `calsync listening on ${base} (database: ${config.databaseUrl.startsWith('pglite://') ? config.databaseUrl : 'postgres'})`,
    `  health:   curl ${base}/health`,
    `  API docs: ${base}/api-docs`,
    '  sign in:',
    `    curl -X POST ${base}/api/auth/send-otp -H 'content-type: application/json' -d '{"phone":"+15550000001","name":"Ada"}'`,
    config.smsGateway
      ? '    (the code arrives by SMS)'
      : '    (no SMS gateway configured: the code is in this log, line "development SMS (not sent)")',
    `    curl -X POST ${base}/api/auth/verify-otp -H 'content-type: application/json' -d '{"phone":"+15550000001","otp":"<CODE>"}'`,
    `    curl ${base}/api/sync/changes -H 'authorization: Bearer <ACCESS_TOKEN>'`,
  ];
  // Plain text for the person at the terminal; the JSON log carries the same facts.
  process.stdout.write(`\n${lines.join('\n')}\n\n`);
}

function installShutdown(logger: Logger, app: FastifyInstance, database: Database, redis: Redis | undefined): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown took longer than 10 s; exiting');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    void (async () => {
      try {
        await app.close();
        await database.close();
        if (redis) await redis.quit();
        process.exit(0);
      } catch (err) {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      }
    })();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/**
 * The one composition root: configuration from the environment, logger, database (migrated),
 * stores, sync engine, SMS sender, sign-in, HTTP app; then listen and stop cleanly on signals.
 */
async function main(): Promise<void> {
  let loaded;
  try {
    loaded = loadConfig(process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
  const { config, warnings } = loaded;
  const logger = pino({ level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] });
  for (const w of warnings) logger.warn(w);

  const database = await createDatabase(config.databaseUrl, { poolMax: config.databasePoolMax });
  const migrated = await migrateToLatest(database.db);
  logger.info({ migrated }, 'database schema is up to date');

  const clock = new SystemClock();
  const random = new CryptoRandom();
  // Batch: a whole push is one unit of work under the user's lock, written set-based (same
  // per-item results as one transaction per item; see bench/PERFORMANCE.md).
  const sync = new SyncService({
    store: new PostgresSyncStore(database.db, { beginInOneRoundTrip: database.kind === 'postgres' }),
    clock,
    cursorCodec: new CursorCodec(config.syncCursorSecret),
    pushMode: 'batch',
  });
  const stats = new PostgresLegacyStatsStore(database.db);
  const smsSender = smsSenderFor(config, logger);
  const { auth } = createAuthModule({
    config,
    users: new PostgresUserStore(database.db),
    store: new PostgresAuthStore(database.db),
    passwordHasher: new ScryptPasswordHasher(),
    clock,
    random,
    smsSender,
  });
  const redis = config.redisUrl ? new Redis(config.redisUrl, { connectTimeout: 1000, maxRetriesPerRequest: 1 }) : undefined;

  const app = await buildApp({ config, logger, sync, stats, auth, readiness: () => database.ping(), redis });
  installShutdown(logger, app, database, redis);
  const address = await app.listen({ port: config.port, host: config.host });
  printHowToSignIn(config, address);
}

main().catch((err: unknown) => {
  process.stderr.write(`calsync failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
