import rateLimit from '@fastify/rate-limit';
import { DomainError } from '@calsync/domain';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AppConfig } from '../config-types.js';

/**
 * The structural subset of an ioredis client that @fastify/rate-limit's Redis store uses: it
 * defines its two Lua scripts as commands (`rateLimit`, `rateLimitRead`) and then calls them.
 */
export interface RateLimitRedis {
  defineCommand(name: string, definition: { numberOfKeys: number; lua: string }): unknown;
}

/** Options of the rate-limit plugin: the window, and Redis when counters must span app nodes. */
export interface RateLimitPluginOptions {
  readonly config: AppConfig;
  readonly redis?: RateLimitRedis | undefined;
}

/** A hook that counts the request against one shared limit and throws 429 RATE_LIMITED past it. */
type LimitHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * preHandler of every protected route: RATE_LIMIT_MAX_REQUESTS per window per user, one
     * counter for all of the user's routes (runs after `authenticate`, so the user is known).
     */
    userRateLimit: LimitHook;
    /** onRequest of the public auth routes: AUTH_RATE_LIMIT_MAX_REQUESTS per window per IP, one counter for all of them. */
    authIpRateLimit: LimitHook;
    /**
     * onRequest of the public subscription feeds: RATE_LIMIT_MAX_REQUESTS per window per IP, a
     * counter of their own. A calendar app polls its feeds on a timer, often from one address for
     * many users (a provider's fetchers, a household's router): on the sign-in counter those polls
     * would use up the sign-in requests of that address.
     */
    feedIpRateLimit: LimitHook;
  }
}

/**
 * Registers @fastify/rate-limit with `global: false` and builds the two shared limits. A limit set
 * in a route's `config.rateLimit` would count each route on its own, so a "600 requests
 * per 15 minutes per user" would become 600 per route; a handler made once by `app.rateLimit()`
 * keeps one store, and every route that uses it shares the counter. Counters live in Redis when a
 * client is given (shared by all app nodes), else in process memory. Exceeding answers 429
 * RATE_LIMITED in the envelope with Retry-After (seconds).
 */
export const rateLimitPlugin = fp<RateLimitPluginOptions>(
  async (app: FastifyInstance, opts) => {
    const { windowMs, maxRequests, authMaxRequests } = opts.config.rateLimit;
    await app.register(rateLimit, {
      global: false,
      timeWindow: windowMs,
      // A Redis outage must not take the API down: requests pass unlimited while the store fails.
      ...(opts.redis ? { redis: opts.redis, nameSpace: 'calsync-rl-', skipOnError: true } : {}),
      errorResponseBuilder: (_request, context) =>
        new DomainError('RATE_LIMITED', 'Too many requests, retry later', undefined, Math.max(1, Math.ceil(context.ttl / 1000))),
    });
    app.decorate(
      'userRateLimit',
      app.rateLimit({
        max: maxRequests,
        timeWindow: windowMs,
        keyGenerator: (request: FastifyRequest) => (request.auth ? `user:${request.auth.userId}` : `ip:${request.ip}`),
      }) as LimitHook,
    );
    app.decorate(
      'authIpRateLimit',
      app.rateLimit({ max: authMaxRequests, timeWindow: windowMs, keyGenerator: (request: FastifyRequest) => `auth-ip:${request.ip}` }) as LimitHook,
    );
    app.decorate(
      'feedIpRateLimit',
      app.rateLimit({ max: maxRequests, timeWindow: windowMs, keyGenerator: (request: FastifyRequest) => `feed-ip:${request.ip}` }) as LimitHook,
    );
  },
  { name: 'calsync-rate-limit' },
);
