import { readdir, stat, statfs } from 'node:fs/promises';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import fp from 'fastify-plugin';
import type { DatabaseStateTracker } from '../database-state.js';
import { failureCodeOf } from './error-handling.js';
import { routeOf } from './request-log.js';

/** The database facts the metrics show: connection use and, for an embedded database, its folder. */
export interface DatabaseGauges {
  connectionStats(): { readonly inUse: number; readonly waiting: number; readonly total: number };
  /** The embedded database's folder (PGlite), null for a database server. */
  readonly dataDirectory: string | null;
}

/** Options of the operator metrics: the database tracker (up/down) and, when known, the database gauges. */
export interface OpsMetricsOptions {
  readonly database: DatabaseStateTracker;
  readonly gauges?: DatabaseGauges | undefined;
  readonly metrics: ServiceMetrics;
}

/** The report of a replayed refresh token: counted and logged at warn (main.ts hands it to sign-in). */
export function refreshReplayReporter(metrics: ServiceMetrics, log: FastifyBaseLogger): OpsEvents['refreshReplayed'] {
  const securityLog = log.child({ component: 'auth' });
  return (replay) => {
    metrics.refreshReplays.inc();
    securityLog.warn({ userId: replay.userId, deviceUid: replay.deviceUid }, 'refresh token replayed: the session was ended');
  };
}

/** Events the service reports outside a request's answer (counted and logged for the operator). */
export interface OpsEvents {
  /** A replayed refresh token ended a device's session (the domain's `onReplay`). */
  refreshReplayed(replay: { readonly userId: number; readonly deviceUid: string | null }): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Operator events (decorated by the ops metrics plugin); main.ts routes the domain's reports here. */
    opsEvents: OpsEvents;
  }
}

/** `2xx`, `4xx`, `5xx`: the label alerts group answers by. */
export function statusClassOf(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}

/** The memory the process may use: the container's limit when there is one, else the machine's memory. */
export function memoryLimitBytes(): number {
  const constrained = process.constrainedMemory();
  const machine = totalmem();
  return constrained > 0 && constrained < machine ? constrained : machine;
}

/** Total size of the files under `dir` (follows no links). */
export async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    total += await stat(join(entry.parentPath, entry.name)).then((s) => s.size, () => 0);
  }
  return total;
}

/** Walking the data folder costs a few milliseconds per thousand files: at most once a minute. */
const FOLDER_SIZE_TTL_MS = 60_000;

/**
 * The metrics the alert rules (ops/prometheus/alerts.yml) read, beside fastify-metrics' request
 * histogram and prom-client's process metrics (memory, event-loop lag): errors by route, status
 * class and code; replayed refresh tokens; the memory limit; database up, connections in use and waiting; and for PGlite
 * its folder size and the free space of its volume. Registered after fastify-metrics, whose
 * registry it uses.
 */
export const opsMetricsPlugin = fp<OpsMetricsOptions>(
  async (app: FastifyInstance, opts) => {
    const client = app.metrics.client;
    const errors = new client.Counter({
      name: 'calsync_http_errors_total',
      help: 'Answers with status 400 or above, by route pattern, status class and error code',
      labelNames: ['route', 'status_class', 'code'],
    });
    // A callback hook: an async one costs a promise on every answer, failed or not.
    app.addHook('onResponse', (request, reply, done) => {
      if (reply.statusCode >= 400) errors.inc({ route: routeOf(request), status_class: statusClassOf(reply.statusCode), code: failureCodeOf(request) ?? 'UNKNOWN' });
      done();
    });

    app.decorate('opsEvents', { refreshReplayed: refreshReplayReporter(opts.metrics, app.log) } satisfies OpsEvents);

    new client.Gauge({
      name: 'calsync_memory_limit_bytes',
      help: 'Memory the process may use: the container limit, else the machine memory (compare process_resident_memory_bytes)',
      collect() {
        this.set(memoryLimitBytes());
      },
    });
    new client.Gauge({
      name: 'calsync_database_up',
      help: 'Whether the database answered a trivial query at this scrape (1) or not (0)',
      async collect() {
        this.set((await opts.database.probe()) ? 1 : 0);
      },
    });
    const gauges = opts.gauges;
    if (!gauges) return;
    new client.Gauge({
      name: 'calsync_db_connections_in_use',
      help: 'Database connections busy with a query or transaction',
      collect() {
        this.set(gauges.connectionStats().inUse);
      },
    });
    new client.Gauge({
      name: 'calsync_db_connections_waiting',
      help: 'Callers waiting for a database connection (pool exhausted, or the PGlite session busy)',
      collect() {
        this.set(gauges.connectionStats().waiting);
      },
    });
    new client.Gauge({
      name: 'calsync_db_connections_open',
      help: 'Database connections open (the pool size now; 1 for PGlite)',
      collect() {
        this.set(gauges.connectionStats().total);
      },
    });
    const dir = gauges.dataDirectory;
    if (dir === null) return;
    let folder = { bytes: 0, at: -Infinity };
    new client.Gauge({
      name: 'calsync_pglite_data_bytes',
      help: 'Size of the embedded PGlite database folder (measured at most once a minute)',
      async collect() {
        if (Date.now() - folder.at >= FOLDER_SIZE_TTL_MS) folder = { bytes: await directoryBytes(dir).catch(() => folder.bytes), at: Date.now() };
        this.set(folder.bytes);
      },
    });
    const volume = async () => statfs(dir).then((s) => ({ size: s.blocks * s.bsize, available: s.bavail * s.bsize }));
    new client.Gauge({
      name: 'calsync_data_volume_size_bytes',
      help: 'Size of the filesystem that holds the PGlite folder',
      async collect() {
        this.set((await volume()).size);
      },
    });
    new client.Gauge({
      name: 'calsync_data_volume_available_bytes',
      help: 'Free space (for unprivileged use) on the filesystem that holds the PGlite folder',
      async collect() {
        this.set((await volume()).available);
      },
    });
  },
  { name: 'calsync-ops-metrics', dependencies: ['calsync-metrics'] },
);
