import cors from '@fastify/cors';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Redis } from 'ioredis';
import type { AuthApi, ChangeFeed, LegacyStatsStore, RenderStore, SyncApi } from '@calsync/domain';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync, type FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { AppConfig } from './config-types.js';
import { errorHandlingPlugin, sendFailure } from './plugins/error-handling.js';
import { metricsPlugin } from './plugins/metrics.js';
import { createServiceMetrics, type ServiceMetrics } from './metrics/service-metrics.js';
import { opsMetricsPlugin, type DatabaseGauges } from './plugins/ops-metrics.js';
import { standardResponsesPlugin } from './plugins/standard-responses.js';
import { storableTextPlugin } from './plugins/storable-text.js';
import { clientErrorHandler, httpEdgesPlugin } from './plugins/http-edges.js';
import { requestBodyPlugin } from './plugins/request-body.js';
import { createValidatorCompiler } from './plugins/validator-compiler.js';
import { openApiPlugin } from './plugins/openapi.js';
import { rateLimitPlugin, type RateLimitRedis } from './plugins/rate-limit.js';
import { requestIdFrom, requestIdPlugin, REQUEST_ID_HEADER } from './plugins/request-id.js';
import { securityHeadersPlugin } from './plugins/security-headers.js';
import { DatabaseStateTracker } from './database-state.js';
import { OneLineRequestLog } from './plugins/request-log.js';
import { authPlugin } from './auth/auth-plugin.js';
import { authRoutes } from './routes/auth-routes.js';
import { healthRoutes } from './routes/health-routes.js';
import { profileRoutes } from './routes/profile-routes.js';
import { legacyRoutes } from './routes/legacy-routes.js';
import { streamRoutes } from './routes/stream-routes.js';
import { davRoutes } from './dav/dav-routes.js';
import { interopRoutes, type InteropRoutesOptions } from './routes/interop-routes.js';
import { occurrenceRoutes } from './routes/occurrence-routes.js';
import { syncRoutes } from './routes/sync-routes.js';
import { webClientPlugin } from './plugins/web-client.js';
import { StreamHub } from './streams/stream-hub.js';
import { RedisStreamLeases } from './streams/stream-leases.js';

/** Everything the HTTP app needs; main.ts builds these, tests pass in-memory ones. */
export interface BuildAppDeps {
  readonly config: AppConfig;
  /** pino options (or true/false) for Fastify to build its logger, or a ready logger instance. */
  readonly logger?: FastifyServerOptions['logger'] | FastifyBaseLogger;
  readonly sync: SyncApi;
  readonly stats: LegacyStatsStore;
  /** Sign-in: `AuthService` in production; HTTP tests of other routes pass a stand-in. */
  readonly auth: AuthApi;
  /**
   * True when the service can serve (database reachable); false or a rejection (with the database's
   * error, which is logged once per change of state) makes /health/ready answer 503.
   */
  readonly readiness: () => Promise<boolean>;
  /** Connection use and data folder of the database, for /metrics (absent: not shown). */
  readonly databaseGauges?: DatabaseGauges | undefined;
  /**
   * The service's metrics, made first by the composition root (main.ts) and handed to everything
   * that reports to them; a fresh set per app when absent (tests).
   */
  readonly metrics?: ServiceMetrics | undefined;
  /** Rate-limit counters and notification-stream slots shared by all app nodes (REDIS_URL); in memory (per node) when absent. */
  readonly redis?: (RateLimitRedis & Pick<Redis, 'eval' | 'zrem'>) | undefined;
  /** This node's change feed: with it, GET /api/sync/stream serves live notifications; without, the route is absent. */
  readonly changes?: ChangeFeed | undefined;
  /** Heartbeat interval of notification streams in ms (25 s; tests shorten it). */
  readonly streamHeartbeatMs?: number;
  /** Folder of the built web client, served at /app/ (with / redirecting there); none when absent. */
  readonly webClientDir?: string | undefined;
  /** App passwords and subscription feeds (and with them CalDAV); the routes are absent without. */
  readonly interop?: (Omit<InteropRoutesOptions, 'sync'> & { /** CalDAV's rendered objects kept across processes. */ readonly renders?: RenderStore }) | undefined;
}

function isLoggerInstance(logger: BuildAppDeps['logger']): logger is FastifyBaseLogger {
  return typeof logger === 'object' && logger !== null && typeof (logger as FastifyBaseLogger).child === 'function';
}

/** What the calsync plugin takes: everything `buildApp` does but the logger (a host app has its own). */
export type CalsyncPluginOptions = Omit<BuildAppDeps, 'logger'>;

/**
 * The whole calsync service as one Fastify plugin, for a host app:
 * `await host.register(calsync, { prefix: '/calsync', config, sync, stats, auth, readiness })`
 * serves sign-in, sync, streams, OpenAPI, /metrics and health under the prefix next to the host's
 * own routes. It is encapsulated: its validator, JSON parser, error envelope, security headers,
 * CORS, rate limits and body limit apply to its routes only. Order matters: request id, errors,
 * security headers, CORS, rate limit, OpenAPI and metrics come before any route so their onRoute
 * hooks see every route; then health, sign-in, sync and legacy routes.
 */
export const calsync: FastifyPluginAsync<CalsyncPluginOptions> = async (instance, deps) => {
  const { config } = deps;
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  // The body limit of every calsync route (the host's server may have another default).
  app.addHook('onRoute', (route) => {
    route.bodyLimit ??= config.bodyLimitBytes;
  });
  // Bodies validated as sent; query and path values (always text) coerced to the schema's types.
  app.setValidatorCompiler(createValidatorCompiler());

  // Only JSON bodies are accepted: anything else is 415 UNSUPPORTED_MEDIA_TYPE.
  app.removeContentTypeParser('text/plain');
  // Many HTTP clients send `content-type: application/json` on every POST. On a route that takes
  // no body (logout, reset-sync) an empty body is then no body, not broken JSON; everywhere else
  // Fastify's own parser (with its prototype-poisoning guard) decides.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' && request.routeOptions.schema?.body === undefined) {
      done(null, undefined);
      return;
    }
    parseJson(request, body.toString(), done);
  });

  await app.register(requestIdPlugin);
  await app.register(errorHandlingPlugin, { bodyLimitBytes: config.bodyLimitBytes });
  await app.register(storableTextPlugin);
  await app.register(httpEdgesPlugin);
  await app.register(requestBodyPlugin);
  await app.register(securityHeadersPlugin);
  await app.register(cors, {
    origin: config.corsOrigin,
    // The default list lacks PATCH and DELETE, which PATCH /api/users/me and device revoke need.
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
    // A browser app may read these: the request id to quote, and when (and how much) it may retry.
    exposedHeaders: [REQUEST_ID_HEADER, 'retry-after', 'etag', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
  });
  await app.register(rateLimitPlugin, { config, redis: deps.redis });
  await app.register(openApiPlugin);
  await app.register(standardResponsesPlugin);
  const metrics = deps.metrics ?? createServiceMetrics();
  await app.register(metricsPlugin, { metrics });
  const database = new DatabaseStateTracker(deps.readiness, app.log.child({ component: 'database' }));
  await app.register(opsMetricsPlugin, { database, gauges: deps.databaseGauges, metrics });

  await app.register(healthRoutes, { database });
  await app.register(authPlugin, { auth: deps.auth });
  await app.register(authRoutes, { auth: deps.auth });
  await app.register(profileRoutes, { auth: deps.auth });
  await app.register(syncRoutes, { sync: deps.sync, config });
  await app.register(occurrenceRoutes, { sync: deps.sync });
  if (deps.interop) {
    await app.register(interopRoutes, { appPasswords: deps.interop.appPasswords, feeds: deps.interop.feeds, sync: deps.sync });
    await app.register(davRoutes, { appPasswords: deps.interop.appPasswords, sync: deps.sync, ...(deps.interop.renders ? { renders: deps.interop.renders } : {}) });
  }
  if (deps.changes) await registerStreams(app, deps, deps.changes);
  await app.register(legacyRoutes, { stats: deps.stats, config });
  if (deps.webClientDir) await app.register(webClientPlugin, { root: deps.webClientDir });
};

/**
 * The standalone server: a Fastify instance with the server-wide settings (logger, request ids,
 * one log line per request, the envelope for errors before routing) and the calsync plugin at the
 * root, not encapsulated, so its decorations (metrics) are the app's. Does not listen (tests use
 * `app.inject`).
 */
export async function buildApp(deps: BuildAppDeps): Promise<FastifyInstance> {
  const { logger, ...options } = deps;
  const app = Fastify({
    ...(isLoggerInstance(logger) ? { loggerInstance: logger } : { logger: logger ?? false }),
    bodyLimit: deps.config.bodyLimitBytes,
    // One line per request instead of Fastify's two, probes and scrapes at debug.
    logController: new OneLineRequestLog(),
    requestIdHeader: false,
    genReqId: requestIdFrom,
    // Errors of the HTTP parser (before routing) also answer in the envelope.
    clientErrorHandler,
    // Malformed URLs and similar router failures also answer in the envelope.
    frameworkErrors: (err, request, reply) => {
      reply.header(REQUEST_ID_HEADER, request.id);
      void sendFailure(reply, { status: 400, code: 'VALIDATION_ERROR', message: err.message.slice(0, 200) });
    },
  });
  await app.register(fp(calsync, { name: 'calsync' }), options);
  return app;
}

/** The notification stream hub on the change feed, its route, and its drain before the server closes. */
async function registerStreams(app: FastifyInstance, deps: BuildAppDeps, feed: ChangeFeed): Promise<void> {
  const newestVersion = (userId: number) => deps.sync.newestVersion(userId);
  const metrics = app.notificationMetrics;
  const hub = new StreamHub({
    feed,
    newestVersion,
    maxPerUser: deps.config.streams.maxPerUser,
    maxConnections: deps.config.streams.maxConnections,
    ...(deps.redis ? { leases: new RedisStreamLeases(deps.redis) } : {}),
    metrics: { openStreams: (n) => metrics.openStreams(n), sent: (n) => metrics.sent('stream', n) },
    onError: (err) => app.log.warn({ err }, 'notification stream'),
  });
  // Streams never end by themselves: close them (closed: shutdown) before the server waits for connections.
  app.addHook('preClose', async () => hub.drain());
  await app.register(streamRoutes, { hub, newestVersion, ...(deps.streamHeartbeatMs === undefined ? {} : { heartbeatMs: deps.streamHeartbeatMs }) });
}
