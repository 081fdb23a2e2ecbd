import {
  PostgresFeedStore,
  PostgresRenderStore,
  PostgresReminderStore,
  PostgresSchedulerLease,
  PostgresLegacyStatsStore,
  PostgresRetentionStore,
  PostgresSyncStore,
  postgresAuthStores,
  createDatabase,
  migrateToLatest,
  waitForDatabase,
  type Database,
} from '@calsync/adapters-postgres';
import { CryptoRandom, ScryptPasswordHasher, SystemClock } from '@calsync/adapters-node';
import { FcmAlertNotifier, FcmChangeNotifier, FcmClient, loadServiceAccount } from '@calsync/adapters-fcm';
import { HttpSmsSender, LoggingSmsSender } from '@calsync/adapters-sms';
import { AppPasswordService, appPasswordRevocations, CursorCodec, FeedService, ReminderScheduler, RetentionJob, SyncService, type DeviceStore, type SmsSender, type UserStore } from '@calsync/domain';
import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import { buildApp } from './app.js';
import { createAuthService } from './auth/create-auth-service.js';
import { causeText } from './plugins/error-handling.js';
import { CONFIG_TABLE, ConfigError, loadConfig, loadConfigSection } from './config.js';
import { scheduleMaintenance, type MaintenanceSchedule } from './maintenance.js';
import { scheduleReminders, type ReminderSchedule } from './reminder-schedule.js';
import { createServiceMetrics, type ServiceMetrics } from './metrics/service-metrics.js';
import { refreshReplayReporter } from './plugins/ops-metrics.js';
import type { AppConfig } from './config-types.js';

function smsSenderFor(config: AppConfig, logger: Logger): SmsSender {
  if (config.smsGateway) return new HttpSmsSender(config.smsGateway);
  // loadConfig already refused production without a gateway.
  return new LoggingSmsSender(logger.child({ component: 'sms' }));
}

/** The FCM senders: data-changed pushes (coalesced) and visible alerts (reminders, conflicts). */
interface FcmNotifiers {
  readonly changes: FcmChangeNotifier;
  readonly alerts: FcmAlertNotifier;
}

/** FCM pushes when FCM_PROJECT_ID and FCM_CREDENTIALS are set; null (said in the log) otherwise. */
async function fcmNotifierFor(config: AppConfig, devices: DeviceStore, users: UserStore, metrics: ServiceMetrics, logger: Logger): Promise<FcmNotifiers | null> {
  if (config.fcm === null) {
    logger.info('FCM push notifications are off (FCM_PROJECT_ID and FCM_CREDENTIALS are not set); notification streams still work');
    return null;
  }
  const account = await loadServiceAccount(config.fcm.credentials);
  const sender = new FcmClient({
    projectId: config.fcm.projectId,
    account,
    endpoint: config.fcmEndpoint,
    ...(config.fcmTokenUrl === undefined ? {} : { tokenUrl: config.fcmTokenUrl }),
  });
  const log = logger.child({ component: 'fcm' });
  log.info({ projectId: config.fcm.projectId, coalesceMs: config.notifyCoalesceMs }, 'FCM push notifications are on');
  const failed = (reason: string, detail?: string): void => {
    metrics.notifications.fcmFailed(reason);
    log.warn({ reason, detail }, 'FCM message failed');
  };
  const changes = new FcmChangeNotifier({ sender, devices, users, coalesceMs: config.notifyCoalesceMs, observer: { sent: () => metrics.notifications.sent('fcm'), failed } });
  const alerts = new FcmAlertNotifier({
    sender,
    devices,
    observer: {
      sent: () => {},
      failed,
      alertSent: (kind) => (kind === 'reminder' ? metrics.reminders.sent('fcm') : metrics.reminders.conflictAlert('fcm')),
    },
  });
  return { changes, alerts };
}

/** The built web client (`packages/web/dist`, beside this package in the repository), if it was built. */
function builtWebClientDir(): string | undefined {
  const dir = fileURLToPath(new URL('../../web/dist/', import.meta.url));
  return existsSync(`${dir}index.html`) ? dir : undefined;
}

function printHowToSignIn(config: AppConfig, address: string, webClientDir: string | undefined): void {
  const base = address.replace('://0.0.0.0', '://localhost').replace('://[::]', '://localhost');
  const codeWhere = config.smsGateway
    ? 'the code arrives by SMS'
    : 'no SMS gateway configured: the sign-in code is in this log, line "development SMS (not sent)"';
  const lines = [
    `calsync listening on ${base} (database: ${config.databaseUrl.startsWith('pglite://') ? config.databaseUrl : 'postgres'})`,
    webClientDir
      ? `  web app:  ${base}/app/  (sign in with any phone number; ${codeWhere})`
      : '  web app:  not built (run `pnpm start`, which builds it, or `pnpm build:web`)',
    `  health:   curl ${base}/health`,
    `  API docs: ${base}/api-docs`,
    '  sign in:',
    `    curl -X POST ${base}/api/auth/send-otp -H 'content-type: application/json' -d '{"phone":"+15550000001","name":"Ada"}'`,
    `    (${codeWhere})`,
    `    curl -X POST ${base}/api/auth/verify-otp -H 'content-type: application/json' -d '{"phone":"+15550000001","otp":"<CODE>"}'`,
    `    curl ${base}/api/sync/changes -H 'authorization: Bearer <ACCESS_TOKEN>'`,
  ];
  // Plain text for the person at the terminal; the JSON log carries the same facts.
  process.stdout.write(`\n${lines.join('\n')}\n\n`);
}

/** What shutdown stops after the app closed (its streams drained): maintenance, the reminder scheduler (its lease given up), FCM sends in flight, the LISTEN connection. */
interface Closers {
  readonly maintenance: MaintenanceSchedule;
  readonly fcm: FcmNotifiers | null;
  readonly reminders: ReminderSchedule;
  readonly feed: { close(): Promise<void> };
  /** The reminder scheduler's own connections (PostgreSQL), closed after it stopped. */
  readonly schedulerDatabase: Database | null;
}

function installShutdown(logger: Logger, app: FastifyInstance, database: Database, redis: Redis | undefined, timeoutMs: number, closers: Closers): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ timeoutMs }, 'shutdown took longer than SHUTDOWN_TIMEOUT_MS; exiting');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    void (async () => {
      try {
        await app.close();
        await closers.maintenance.stop();
        await closers.reminders.stop();
        await closers.schedulerDatabase?.close();
        await closers.fcm?.changes.close();
        await closers.fcm?.alerts.idle();
        await closers.feed.close();
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

/** Start-up waits for a database that is not up yet (logging each retry) instead of exiting at once. */
async function waitForDatabaseAtStart(database: Database, timeoutMs: number, logger: Logger): Promise<void> {
  const started = Date.now();
  try {
    const attempts = await waitForDatabase(database, {
      timeoutMs,
      onRetry: ({ attempt, error, retryInMs }) =>
        logger.warn({ attempt, retryInMs, reason: causeText(error) }, `database not reachable yet; retrying (DATABASE_STARTUP_TIMEOUT_MS=${timeoutMs})`),
    });
    if (attempts > 1) logger.info({ attempts, waitedMs: Date.now() - started }, 'database reachable');
  } catch (error) {
    await database.close().catch(() => {});
    const reason = causeText(error);
    throw new Error(`the database did not answer within ${timeoutMs} ms (DATABASE_STARTUP_TIMEOUT_MS): ${reason}`, { cause: error });
  }
}

/**
 * The one composition root (also of `migrate`, below): configuration from the environment, logger, database (migrated),
 * stores, sync engine, SMS sender, sign-in, HTTP app; then listen and stop cleanly on signals.
 */
async function main(): Promise<void> {
  const { config, warnings } = loadConfig(process.env);
  const logger = pino({ level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] });
  for (const w of warnings) logger.warn(w);

  const database = await createDatabase(config.databaseUrl, {
    poolMax: config.databasePoolMax,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
  });
  await waitForDatabaseAtStart(database, config.databaseStartupTimeoutMs, logger);
  const migrated = await migrateToLatest(database.db);
  logger.info({ migrated }, 'database schema is up to date');

  const clock = new SystemClock();
  const random = new CryptoRandom();
  // This node's ends of the notification fan-out: LISTEN (PostgreSQL) or the engine's own (PGlite).
  // Logged once per change of state, the error as one line: a database outage retries many times.
  let feedState: string | null = null;
  const feed = await database.openChangeFeed({
    onState: (state, err) => {
      if (state === feedState) return;
      feedState = state;
      if (state === 'lost') logger.warn({ error: err instanceof Error ? err.message : String(err) }, 'change feed LISTEN connection lost; reconnecting');
      else logger.info('change feed listening');
    },
  });
  // The metrics first: everything below reports to them (the app serves them at /metrics).
  const metrics = createServiceMetrics();
  const authStores = postgresAuthStores(database.db);
  const fcm = await fcmNotifierFor(config, authStores.devices, authStores.users, metrics, logger);
  const sync = new SyncService({
    store: new PostgresSyncStore(database.db),
    clock,
    cursorCodec: new CursorCodec(config.syncCursorSecret),
    // A storage failure one item caused is that item's per-item error; the cause is ours to fix.
    onItemFailure: ({ userId, type, uid, error }) => logger.error({ err: error, userId, type, uid }, 'push item could not be stored'),
    onGroup: (pushes) => metrics.sync.pushGroup(pushes),
    ...(fcm ? { notifier: fcm.changes } : {}),
    // A push's conflict alerts reached the streams with its commit (NOTIFY in its transaction); FCM follows.
    alerts: {
      alerted: (alert) => {
        metrics.reminders.conflictAlert('stream');
        fcm?.alerts.alerted(alert);
      },
    },
  });
  const stats = new PostgresLegacyStatsStore(database.db);
  const smsSender = smsSenderFor(config, logger);
  // A calendar app's verified app password is reused as long as an access token's session check
  // (SESSION_CACHE_SECONDS); a revoke drops it at once here and through the feed on other nodes.
  const appPasswords = new AppPasswordService({ users: authStores.users, devices: authStores.devices, random, clock, cacheMs: config.sessionCacheSeconds * 1000 });
  const auth = createAuthService({
    config,
    ...authStores,
    sync,
    passwordHasher: new ScryptPasswordHasher(),
    clock,
    random,
    smsSender,
    sessionEnds: appPasswordRevocations(appPasswords, feed),
    onRefreshReplay: refreshReplayReporter(metrics, logger),
  });
  const redis = config.redisUrl ? new Redis(config.redisUrl, { connectTimeout: 1000, maxRetriesPerRequest: 1 }) : undefined;

  const webClientDir = builtWebClientDir();
  const interop = {
    appPasswords,
    feeds: new FeedService({ feeds: new PostgresFeedStore(database.db), sync, random, clock }),
    renders: new PostgresRenderStore(database.db),
  };
  const app = await buildApp({ config, logger, metrics, sync, stats, auth, readiness: () => database.ping(), databaseGauges: database, redis, webClientDir, changes: feed, interop });
  const retention = new RetentionJob({
    store: new PostgresRetentionStore(database.db, database.kind),
    clock,
    policy: { receiptsMs: config.retention.receipts * 1000, tombstonesMs: config.retention.tombstones * 1000, conflictsMs: config.retention.conflicts * 1000 },
    observer: metrics.retention,
  });
  const maintenance = scheduleMaintenance(retention, config.retention.maintenanceInterval * 1000, logger.child({ component: 'maintenance' }));
  // The scheduler's reads and writes go over connections of their own on PostgreSQL: behind the
  // request pool's queue, a busy service (100 devices syncing flat out) made reminders 15 s late.
  const schedulerDatabase =
    database.kind === 'postgres'
      ? await createDatabase(config.databaseUrl, { poolMax: 2, connectTimeoutMs: config.databaseConnectTimeoutMs, statementTimeoutMs: config.databaseStatementTimeoutMs })
      : database;
  const schedulerUsers = schedulerDatabase === database ? authStores.users : postgresAuthStores(schedulerDatabase.db).users;
  const scheduler = new ReminderScheduler({
    store: new PostgresReminderStore(schedulerDatabase.db),
    lease: new PostgresSchedulerLease(schedulerDatabase.db),
    clock,
    settings: async (userIds) => new Map((await schedulerUsers.findByIds(userIds)).map((u) => [u.id, u.notificationSettings])),
    holder: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    graceMs: config.reminders.grace * 1000,
    leaseMs: config.reminders.leaseMs,
    ...(fcm ? { pushes: fcm.alerts } : {}),
    observer: {
      sent: (latenessMs) => {
        metrics.reminders.sent('stream');
        metrics.reminders.lateness(latenessMs);
      },
      skipped: (count) => {
        metrics.reminders.skipped(count);
        logger.warn({ count, grace: config.reminders.grace }, 'reminders skipped: they fell due longer than REMINDER_GRACE ago');
      },
      leadership: (held) => metrics.reminders.leader(held),
    },
  });
  const reminders = scheduleReminders(scheduler, feed, config.reminders.pollMs, logger.child({ component: 'reminders' }));
  installShutdown(logger, app, database, redis, config.shutdownTimeoutMs, { maintenance, reminders, fcm, feed, schedulerDatabase: schedulerDatabase === database ? null : schedulerDatabase });
  const address = await app.listen({ port: config.port, host: config.host });
  printHowToSignIn(config, address, webClientDir);
}

/** `pnpm migrate`: checks the variables it reads as start-up does, migrates, prints one line. */
async function migrate(): Promise<void> {
  const { databaseUrl } = loadConfigSection({ databaseUrl: CONFIG_TABLE.databaseUrl }, process.env);
  const database = await createDatabase(databaseUrl, { poolMax: 1 });
  try {
    const { applied } = await migrateToLatest(database.db);
    process.stdout.write(applied.length === 0 ? 'migrate: schema already up to date\n' : `migrate: applied ${applied.join(', ')}\n`);
  } finally {
    await database.close();
  }
}

const command = process.argv[2] === 'migrate' ? migrate : main;
command().catch((err: unknown) => {
  // An operator's mistake gets plain lines, never a stack trace: every configuration problem at once.
  const lines = err instanceof ConfigError ? err.problems : [`calsync ${command === migrate ? 'migrate' : 'start-up'} failed: ${err instanceof Error ? err.message : String(err)}`];
  process.stderr.write(`${lines.join('\n')}\n`);
  process.exit(1);
});
