import { execFile } from 'node:child_process';
import { access, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { join, resolve as resolvePath } from 'node:path';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import pg from 'pg';
import { backoffMs } from '@calsync/domain';
import { notifyQuery } from './notify/change-payload.js';
import { PGliteChangeFeed } from './notify/pglite-change-feed.js';
import { PostgresChangeFeed, type ClosableChangeFeed, type PostgresChangeFeedOptions } from './notify/postgres-change-feed.js';
import { withUnavailableMapping } from './database-faults.js';
import { PGliteDialect, type ConnectionStats } from './pglite-dialect.js';
import { lockPGliteFolder, type FolderLock } from './pglite-folder-lock.js';
import { PgDialect } from './pg-driver.js';
import type { DB } from './schema.js';

/** Which engine a `Database` runs on. PGlite has one session, so it serializes all transactions. */
export type DatabaseKind = 'postgres' | 'pglite';

/** An open database: the Kysely handle plus lifecycle and health check. */
export interface Database {
  readonly db: Kysely<DB>;
  readonly kind: DatabaseKind;
  /** Ends the pool (or the embedded engine). */
  close(): Promise<void>;
  /**
   * Resolves true when a trivial query succeeds; rejects with the database's own error otherwise
   * (the readiness probe reports it).
   */
  ping(): Promise<boolean>;
  /** How busy the connections are now (pool metrics). */
  connectionStats(): ConnectionStats;
  /** The folder an embedded database keeps its files in (its size is a metric), null otherwise. */
  readonly dataDirectory: string | null;
  /**
   * Opens this node's change feed (the other end of `SyncUnitOfWork.announceChange`): a dedicated
   * LISTEN connection on PostgreSQL, the engine's own LISTEN on PGlite. Resolves once it listens.
   */
  openChangeFeed(options?: ChangeFeedOptions): Promise<ClosableChangeFeed>;
}

export type { ConnectionStats } from './pglite-dialect.js';

/** Reconnection tuning and state reports of a PostgreSQL change feed (PGlite ignores them). */
export type ChangeFeedOptions = Omit<PostgresChangeFeedOptions, 'connect' | 'notify'>;

/** Options of `createDatabase`. */
export interface CreateDatabaseOptions {
  /** Size of the pg pool (default 10). Ignored by PGlite. */
  readonly poolMax?: number;
  /** Schema to put first on the search_path of every connection (created for PGlite only). */
  readonly schema?: string;
  /** PGlite's shared_buffers in MB (default 16; PostgreSQL's own 128 MB is most of PGlite's memory). Ignored by pg. */
  readonly pgliteSharedBuffersMb?: number;
  /** PostgreSQL only: how long getting a connection (from the pool, or a new one) may take; 0 waits for ever (pg-pool's connectionTimeoutMillis). */
  readonly connectTimeoutMs?: number;
  /** PostgreSQL only: how long one statement may go unanswered; 0: no bound (see `statement-timeout.ts`). */
  readonly statementTimeoutMs?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Opens the database named by a DATABASE_URL (see the configuration table in the README): `postgres://…` or
 * `postgresql://…` through a pg Pool; `pglite://memory` or `pglite://<dir>` through embedded PGlite.
 * INT8 values come back as decimal strings on both.
 */
export async function createDatabase(url: string, opts: CreateDatabaseOptions = {}): Promise<Database> {
  if (opts.schema !== undefined && !SCHEMA_NAME.test(opts.schema)) {
    throw new Error(`invalid schema name: ${opts.schema}`);
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    return openPostgres(url, opts);
  }
  if (url.startsWith('pglite://')) {
    return openPGlite(url.slice('pglite://'.length), opts);
  }
  throw new Error('DATABASE_URL must start with postgres://, postgresql:// or pglite://');
}

function openPostgres(url: string, opts: CreateDatabaseOptions): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolMax ?? 10,
    // Parameterized statements are prepared once per connection (see PgConnection), and planned once: a prepared statement otherwise keeps being re-planned at every
    // execution whenever PostgreSQL's estimate of its generic plan is dearer than the custom ones
    // (the push prefetch spent 0.9 ms per push in planning under the user's lock). Every hot
    // statement probes its keys whatever the plan (push-plan.pg.test.ts checks both kinds).
    options: [
      '-c plan_cache_mode=force_generic_plan',
      ...(opts.statementTimeoutMs ? [`-c statement_timeout=${opts.statementTimeoutMs}`] : []),
      ...(opts.schema === undefined ? [] : [`-c search_path=${opts.schema}`]),
    ].join(' '),
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 0,
  });
  // An idle client losing its connection must not crash the process; the pool drops it, and the
  // next unit of work gets a new connection (or DATABASE_UNAVAILABLE while the server is down).
  pool.on('error', () => {});
  // A client emits 'error' when its connection dies (server restart, pg_terminate_backend). The
  // pool listens only while the client is idle; checked out, an unheard 'error' would end the
  // process. The statement in flight fails on its own (and becomes DATABASE_UNAVAILABLE), and the
  // pool drops the client when it comes back unusable, so the event itself needs nothing more.
  pool.on('connect', (client) => client.on('error', () => {}));
  // Every statement bounded by the client (the server's statement_timeout above cannot answer over a dead network).
  const db = new Kysely<DB>({ dialect: withUnavailableMapping(new PgDialect(pool, opts.statementTimeoutMs ?? 0)) });
  const connectionStats = (): ConnectionStats => ({ inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount, total: pool.totalCount });
  return wrap(db, 'postgres', connectionStats, null, async (options) => {
    const feed = new PostgresChangeFeed({
      ...options,
      connect: () =>
        new pg.Client({
          connectionString: url,
          keepAlive: true,
          connectionTimeoutMillis: opts.connectTimeoutMs ?? 0,
          application_name: 'calsync change feed',
          ...(opts.schema === undefined ? {} : { options: `-c search_path=${opts.schema}` }),
        }),
      notify: async (payload) => {
        await notifyQuery(payload).execute(db);
      },
    });
    await feed.start();
    return feed;
  });
}

/** PGlite's page cache when the caller does not say: enough for one person's calendars, far below PostgreSQL's 128 MB. */
const PGLITE_SHARED_BUFFERS_MB = 16;

/**
 * Creates a new PGlite folder (initdb) in a short-lived child process: initdb runs in a second
 * engine whose memory (a few hundred MB) would otherwise stay with the server for its lifetime.
 */
async function initialisePGliteFolder(dataDir: string): Promise<void> {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const script = `require('node:v8').setFlagsFromString('--liftoff-only'); require(${JSON.stringify(entry)}).PGlite.create({ dataDir: ${JSON.stringify(dataDir)} }).then((pg) => pg.close())`;
  await new Promise<void>((resolve, reject) => {
    execFile(process.execPath, ['-e', script], { timeout: 300_000 }, (error, _stdout, stderr) =>
      error ? reject(new Error(`could not initialise the PGlite folder ${dataDir}: ${stderr.trim().split('\n').pop() ?? error.message}`)) : resolve(),
    );
  });
}

/**
 * Opens embedded PGlite. Memory (measured, see bench/PERFORMANCE.md): PostgreSQL's default
 * shared_buffers of 128 MB lives in the WebAssembly memory, so it is set small; a new folder is
 * initialised in a child process (see initialisePGliteFolder); and V8 keeps PGlite's code in its
 * baseline compiler (Liftoff) instead of also compiling hot functions again with TurboFan, which
 * held about 40 MB of code and, on a busy machine, cost more CPU than it saved. The flag only
 * affects WebAssembly, which nothing else in the process uses.
 */
async function openPGlite(location: string, opts: CreateDatabaseOptions): Promise<Database> {
  setFlagsFromString('--liftoff-only');
  const parsers = { [pgliteTypes.INT8]: (x: string) => x };
  const startParams = [
    ...PGlite.defaultStartParams,
    '-c',
    `shared_buffers=${opts.pgliteSharedBuffersMb ?? PGLITE_SHARED_BUFFERS_MB}MB`,
    // Prepared statements (see PGliteDialect) are planned once, as on the PostgreSQL pool.
    '-c',
    'plan_cache_mode=force_generic_plan',
  ];
  let engine: PGlite;
  let dataDir: string | null = null;
  let lock: FolderLock | null = null;
  if (location === 'memory' || location === '') {
    engine = await PGlite.create({ parsers, startParams });
  } else {
    dataDir = resolvePath(location);
    await mkdir(dataDir, { recursive: true });
    // One process per folder: a second engine on the same files would acknowledge writes it loses.
    lock = await lockPGliteFolder(dataDir);
    try {
      if (!(await access(join(dataDir, 'PG_VERSION')).then(() => true, () => false))) await initialisePGliteFolder(dataDir);
      engine = await PGlite.create({ dataDir, parsers, startParams });
    } catch (error) {
      await lock.release();
      throw error;
    }
  }
  if (opts.schema !== undefined) {
    await engine.query(`create schema if not exists ${opts.schema}`);
    await engine.query(`set search_path to ${opts.schema}`);
  }
  const dialect = new PGliteDialect(engine);
  const db = new Kysely<DB>({ dialect });
  const database = wrap(db, 'pglite', () => dialect.stats(), dataDir, async () => {
    // Holding a Kysely connection is holding the driver's lock (one session behind a FIFO).
    const feed = new PGliteChangeFeed(engine, (work) => db.connection().execute(() => work()));
    await feed.start();
    return feed;
  });
  if (lock === null) return database;
  const held = lock;
  return {
    ...database,
    async close() {
      try {
        await database.close();
      } finally {
        await held.release();
      }
    },
  };
}

function wrap(db: Kysely<DB>, kind: DatabaseKind, connectionStats: () => ConnectionStats, dataDirectory: string | null, openChangeFeed: Database['openChangeFeed']): Database {
  return {
    db,
    kind,
    dataDirectory,
    connectionStats,
    openChangeFeed,
    close: () => db.destroy(),
    async ping() {
      await sql`select 1`.execute(db);
      return true;
    },
  };
}

/** Options of `waitForDatabase`. */
export interface WaitForDatabaseOptions {
  /** Give up after this long (0: one attempt only). */
  readonly timeoutMs: number;
  /** Told before each retry: the attempt that failed, why, and the wait before the next one. */
  readonly onRetry?: (info: { attempt: number; error: unknown; retryInMs: number }) => void;
  /** First wait between attempts; doubles up to `maxDelayMs`. */
  readonly initialDelayMs?: number;
  readonly maxDelayMs?: number;
}

/**
 * Waits until the database answers `select 1`, retrying with exponential backoff, so a service that
 * starts before its PostgreSQL (a reboot, a compose file) waits instead of exiting. Resolves with
 * the number of attempts; rejects with the last error once `timeoutMs` has passed.
 */
export async function waitForDatabase(database: Database, opts: WaitForDatabaseOptions): Promise<number> {
  const deadline = Date.now() + opts.timeoutMs;
  const policy = { baseMs: opts.initialDelayMs ?? 100, maxMs: opts.maxDelayMs ?? 2000, jitter: 'none' } as const;
  for (let attempt = 1; ; attempt++) {
    try {
      await sql`select 1`.execute(database.db);
      return attempt;
    } catch (error) {
      const left = deadline - Date.now();
      if (left <= 0) throw error;
      const retryInMs = Math.min(backoffMs(attempt - 1, policy), left);
      opts.onRetry?.({ attempt, error, retryInMs });
      await new Promise((resolve) => setTimeout(resolve, retryInMs));
    }
  }
}
