import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** Header that carries the request id both ways. */
export const REQUEST_ID_HEADER = 'x-request-id';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Fastify's `genReqId`: the caller's `x-request-id` when it is a short safe token (so logs can be
 * joined with the caller's), else a new UUID. Unsafe values are replaced, never echoed.
 */
export function requestIdFrom(req: IncomingMessage): string {
  const sent = req.headers[REQUEST_ID_HEADER];
  return typeof sent === 'string' && SAFE_ID.test(sent) ? sent : randomUUID();
}

/** Echoes the request id on every response, errors and 404s included. */
export const requestIdPlugin = fp(
  async (app: FastifyInstance) => {
    // A callback hook: an async one costs a promise and a microtask on every request.
    app.addHook('onRequest', (request, reply, done) => {
      reply.header(REQUEST_ID_HEADER, request.id);
      done();
    });
  },
  { name: 'calsync-request-id' },
);
