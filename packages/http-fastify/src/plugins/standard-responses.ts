import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { errorEnvelopeSchema } from '@calsync/wire';

/** The error answers every route of a kind can give, with what each means (API.md's table). */
const ANSWERS = {
  400: 'VALIDATION_ERROR (details: the failing paths) or INVALID_JSON',
  401: 'UNAUTHORIZED (no, bad or revoked token) or TOKEN_EXPIRED (refresh, then retry once)',
  403: 'WRONG_TOKEN_TYPE (a refresh token used as Bearer)',
  413: 'PAYLOAD_TOO_LARGE (body over BODY_LIMIT_BYTES); on push also BATCH_TOO_LARGE (over 1000 items in one array)',
  415: 'UNSUPPORTED_MEDIA_TYPE (the body is not JSON)',
  429: 'RATE_LIMITED, with Retry-After (seconds)',
  500: 'INTERNAL (logged with the request id; never detailed)',
  503: 'NOT_READY (readiness: the database does not answer) or DATABASE_UNAVAILABLE (the database could not be reached for this request; with Retry-After)',
} as const;

type Status = keyof typeof ANSWERS;

/** Which of the standard answers a route can give, from what its schema says about it. */
function statusesOf(route: RouteOptions): Status[] {
  const schema = route.schema ?? {};
  const statuses: Status[] = [500];
  if (schema.body !== undefined) statuses.push(400, 413, 415);
  if (schema.querystring !== undefined || schema.params !== undefined) statuses.push(400);
  const isProtected = Array.isArray((schema as { security?: unknown[] }).security);
  if (isProtected) statuses.push(401, 403, 429);
  if (!isProtected && route.url.startsWith('/api/auth/')) statuses.push(429);
  if (route.url === '/health/ready' || route.url.startsWith('/api/')) statuses.push(503);
  return statuses;
}

/**
 * Completes every route's documented responses with the error answers it can give (the error
 * envelope, with the codes of API.md), so /api-docs-json lists them all without each route
 * repeating them. A status a route documents itself keeps its schema (and its description, if any).
 */
export const standardResponsesPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRoute', (route) => {
      const schema = (route.schema ??= {}) as { hide?: boolean; response?: Record<string, unknown> };
      if (schema.hide) return;
      const response = (schema.response ??= {});
      for (const status of statusesOf(route)) {
        const own = response[status] as { description?: string } | undefined;
        if (own === undefined) response[status] = { ...errorEnvelopeSchema, description: ANSWERS[status] };
        else if (own.description === undefined) response[status] = { ...own, description: ANSWERS[status] };
      }
    });
  },
  { name: 'calsync-standard-responses' },
);
