import rateLimit, { type RateLimitOptions } from '@fastify/rate-limit';
import { DomainError } from '@calsync/domain';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import type { AppConfig } from '../config-types.js';

/** Options of the rate-limit plugin: the window, and Redis when counters must span app nodes. */
export interface RateLimitPluginOptions {
  readonly config: AppConfig;
  readonly redis?: Redis | undefined;
}

/**
 * Registers @fastify/rate-limit with `global: false`: only routes that carry a `config.rateLimit`
 * are limited. Counters live in Redis when a client is given, else in process memory. Exceeding
 * answers 429 RATE_LIMITED in the envelope with Retry-After (seconds).
 */
export const rateLimitPlugin = fp<RateLimitPluginOptions>(
  async (app: FastifyInstance, opts) => {
    await app.register(rateLimit, {
      global: false,
      timeWindow: opts.config.rateLimit.windowMs,
      // A Redis outage must not take the API down: requests pass unlimited while the store fails.
      ...(opts.redis ? { redis: opts.redis, nameSpace: 'calsync-rl-', skipOnError: true } : {}),
      errorResponseBuilder: (_request, context) =>
        new DomainError('RATE_LIMITED', 'Too many requests, retry later', undefined, Math.max(1, Math.ceil(context.ttl / 1000))),
    });
  },
  { name: 'calsync-rate-limit' },
);

/**
 * Route `config.rateLimit` of the protected routes: RATE_LIMIT_MAX_REQUESTS per window per user,
 * checked at preHandler so the caller (request.auth) is known.
 */
export function perUserRateLimit(config: AppConfig): RateLimitOptions {
  return {
    max: config.rateLimit.maxRequests,
    timeWindow: config.rateLimit.windowMs,
    hook: 'preHandler',
    keyGenerator: (request: FastifyRequest) => (request.auth ? `user:${request.auth.userId}` : `ip:${request.ip}`),
  };
}
