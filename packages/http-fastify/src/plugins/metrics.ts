import type { RetentionObserver } from '@calsync/domain';
import type { FastifyInstance, FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import * as fastifyMetricsModule from 'fastify-metrics';
import fp from 'fastify-plugin';
import { operation } from '../routes/operation.js';
import type { NotificationMetrics, ServiceMetrics, SyncMetrics } from '../metrics/service-metrics.js';

// fastify-metrics is CommonJS with `exports.default`; Node's ESM loader and vitest disagree on
// whether the default import is the plugin or the module object, so take whichever is callable.
type MetricsPlugin = FastifyPluginCallback<Record<string, unknown>>;
const metricsModule = fastifyMetricsModule as unknown as { default: MetricsPlugin | { default: MetricsPlugin } };
const fastifyMetrics: MetricsPlugin =
  typeof metricsModule.default === 'function' ? metricsModule.default : metricsModule.default.default;

export type { NotificationMetrics, SyncMetrics } from '../metrics/service-metrics.js';

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
 * plus process metrics) beside the service's own metrics, which were made before the app
 * (`createServiceMetrics`) in the same prom-client registry; they are decorated onto the app for
 * the routes that report to them. Registered before the routes so they are measured.
 */
export const metricsPlugin = fp<{ metrics: ServiceMetrics }>(
  async (app: FastifyInstance, opts) => {
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
      // The registry was cleared when the service metrics were made, just before.
      promClient: opts.metrics.client,
      clearRegisterOnInit: false,
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
    app.decorate('syncMetrics', opts.metrics.sync);
    app.decorate('notificationMetrics', opts.metrics.notifications);
    app.decorate('retentionMetrics', opts.metrics.retention);
    app.decorate('smsMetrics', opts.metrics.sms);
  },
  { name: 'calsync-metrics' },
);
