import type { PullResponse, PushResponse, RecordType, RetentionObserver } from '@calsync/domain';
import { RECORD_TYPES, RETENTION_KINDS } from '@calsync/domain';
import type { FastifyInstance, FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import * as fastifyMetricsModule from 'fastify-metrics';
import fp from 'fastify-plugin';
import { operation } from '../routes/operation.js';

// fastify-metrics is CommonJS with `exports.default`; Node's ESM loader and vitest disagree on
// whether the default import is the plugin or the module object, so take whichever is callable.
type MetricsPlugin = FastifyPluginCallback<Record<string, unknown>>;
const metricsModule = fastifyMetricsModule as unknown as { default: MetricsPlugin | { default: MetricsPlugin } };
const fastifyMetrics: MetricsPlugin =
  typeof metricsModule.default === 'function' ? metricsModule.default : metricsModule.default.default;

/** Sync counters derived from service responses, shown at /metrics next to the request metrics. */
export interface SyncMetrics {
  /** Counts pushed items by record type and result status, and the conflicts the push created. */
  recordPush(response: PushResponse): void;
  /** Counts pulled rows by record type and cursor resets (by whether a cursor was sent). */
  recordPull(response: PullResponse, cursorSent: boolean): void;
}

/** Live-notification gauges and counters (streams on this node, FCM sends and failures). */
export interface NotificationMetrics {
  /** Open notification streams on this node. */
  openStreams(count: number): void;
  /** `count` notifications sent through `channel` (`stream` or `fcm`). */
  sent(channel: 'stream' | 'fcm', count?: number): void;
  /** One FCM message given up on, by reason (`unregistered`, `invalid-token`, `quota`, `unavailable`, …). */
  fcmFailed(reason: string): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Sync counters (decorated by the metrics plugin). */
    syncMetrics: SyncMetrics;
    /** Notification stream and FCM metrics (decorated by the metrics plugin). */
    notificationMetrics: NotificationMetrics;
    /** What the maintenance job removed, its horizons and runs (decorated by the metrics plugin). */
    retentionMetrics: RetentionObserver;
    /** Sign-in codes sent by SMS, by country calling code (decorated by the metrics plugin). */
    smsMetrics: { sent(callingCode: string): void };
  }
}

/**
 * fastify-metrics at /metrics (request counts and latency histograms by route, method and status,
 * plus process metrics) and the sync counters. Registered before the routes so they are measured.
 * The prom-client registry is process-wide; each new app clears it (one live app per process).
 */
export const metricsPlugin = fp(
  async (app: FastifyInstance) => {
    await app.register(fastifyMetrics, {
      // Its own route (ours logs every scrape at debug) with a schema, so the document lists it as text/plain.
      endpoint: {
        url: '/metrics',
        method: 'GET',
        exposeHeadRoute: false,
        logLevel: 'debug',
        schema: { ...operation('getMetrics'), response: { 200: { content: { 'text/plain': { schema: { type: 'string' } } } } } },
        handler: () => undefined,
      },
      clearRegisterOnInit: true,
      defaultMetrics: { enabled: true },
      routeMetrics: {
        enabled: { histogram: true, summary: false },
        registeredRoutesOnly: true,
        // Alerts compare classes (error rate: 5xx over all); status_code stays for detail.
        customLabels: { status_class: (_request: FastifyRequest, reply: FastifyReply) => `${Math.floor(reply.statusCode / 100)}xx` },
        // Up to 10 s, with 2 s (the slow-response alert's threshold) as a bucket boundary.
        overrides: { histogram: { buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10] } },
      },
    });
    const client = app.metrics.client;
    const pushed = new client.Counter({
      name: 'calsync_sync_push_items_total',
      help: 'Pushed sync items by record type and result status',
      labelNames: ['type', 'status'],
    });
    const conflicts = new client.Counter({
      name: 'calsync_sync_conflicts_created_total',
      help: 'Conflict records created by pushes, by entity type',
      labelNames: ['entity_type'],
    });
    const pulled = new client.Counter({
      name: 'calsync_sync_pull_rows_total',
      help: 'Rows returned by pulls, by record type',
      labelNames: ['type'],
    });
    const resets = new client.Counter({
      name: 'calsync_sync_cursor_resets_total',
      help: 'Pulls answered with a full snapshot (cursorReset), by whether the client sent a cursor',
      labelNames: ['cursor_sent'],
    });
    // Touch the label sets once so the series exist (at 0) before the first sync.
    for (const type of RECORD_TYPES) pulled.inc({ type }, 0);
    resets.inc({ cursor_sent: 'true' }, 0);
    resets.inc({ cursor_sent: 'false' }, 0);

    const streamsOpen = new client.Gauge({ name: 'calsync_notification_streams_open', help: 'Open data-changed notification streams on this node' });
    const notificationsSent = new client.Counter({
      name: 'calsync_notifications_sent_total',
      help: 'Data-changed notifications sent, by channel (stream, fcm)',
      labelNames: ['channel'],
    });
    const fcmFailures = new client.Counter({ name: 'calsync_fcm_failures_total', help: 'FCM messages given up on, by reason', labelNames: ['reason'] });
    notificationsSent.inc({ channel: 'stream' }, 0);
    notificationsSent.inc({ channel: 'fcm' }, 0);
    streamsOpen.set(0);
    app.decorate('notificationMetrics', {
      openStreams: (count) => streamsOpen.set(count),
      sent: (channel, count = 1) => notificationsSent.inc({ channel }, count),
      fcmFailed: (reason) => fcmFailures.inc({ reason }),
    } satisfies NotificationMetrics);

    const removed = new client.Counter({ name: 'calsync_retention_rows_removed_total', help: 'Rows the maintenance job removed, by kind (receipts, tombstones, conflicts, sessions, codes, codeSends)', labelNames: ['kind'] });
    const horizon = new client.Gauge({ name: 'calsync_retention_horizon_timestamp_seconds', help: 'Unix time before which the last maintenance run removed each kind', labelNames: ['kind'] });
    const runs = new client.Counter({ name: 'calsync_maintenance_runs_total', help: 'Maintenance runs by outcome (ran; skipped: another node held the lock; failed)', labelNames: ['outcome'] });
    const lastRun = new client.Gauge({ name: 'calsync_maintenance_last_run_timestamp_seconds', help: 'Unix time of the last maintenance run, by outcome', labelNames: ['outcome'] });
    for (const kind of RETENTION_KINDS) removed.inc({ kind }, 0);
    for (const outcome of ['ran', 'skipped', 'failed']) runs.inc({ outcome }, 0);
    app.decorate('retentionMetrics', {
      removed: (kind, rows) => removed.inc({ kind }, rows),
      horizon: (kind, before) => horizon.set({ kind }, before.getTime() / 1000),
      finished: (outcome, at) => {
        runs.inc({ outcome });
        lastRun.set({ outcome }, at.getTime() / 1000);
      },
    } satisfies RetentionObserver);

    const smsSent = new client.Counter({ name: 'calsync_sms_codes_sent_total', help: 'Sign-in codes sent by SMS, by country calling code (unknown: none assigned)', labelNames: ['calling_code'] });
    app.decorate('smsMetrics', { sent: (callingCode: string) => smsSent.inc({ calling_code: callingCode }) });

    app.decorate('syncMetrics', {
      recordPush(response: PushResponse) {
        for (const type of RECORD_TYPES) {
          for (const item of response[type as RecordType] ?? []) pushed.inc({ type, status: item.status });
        }
        for (const c of response.conflicts) conflicts.inc({ entity_type: c.entityType });
      },
      recordPull(response: PullResponse, cursorSent: boolean) {
        for (const type of RECORD_TYPES) {
          const n = response[type as RecordType]?.length ?? 0;
          if (n > 0) pulled.inc({ type }, n);
        }
        if (response.cursorReset) resets.inc({ cursor_sent: String(cursorSent) });
      },
    } satisfies SyncMetrics);
  },
  { name: 'calsync-metrics' },
);
