import { DomainError } from '@calsync/domain';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { errorEnvelope } from '../envelope.js';

/**
 * Fastify's `clientErrorHandler`: errors of Node's HTTP parser, before any route or hook runs (a
 * header section over the limit, a malformed request line or method, a bad chunk, a request
 * timeout), answered in the error envelope on the raw socket, which is then closed.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const message =
    status === 431 ? 'Request header fields too large' : status === 408 ? 'Request timed out' : 'Malformed HTTP request';
  const body = JSON.stringify(errorEnvelope('VALIDATION_ERROR', message));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** @fastify/cors reads a route's `cors`: false takes the route out of CORS (its types do not declare it). */
    cors?: false;
  }
}

/**
 * HTTP edges in the error envelope: a CORS preflight without Origin (or without
 * Access-Control-Request-Method) is refused here as 400 VALIDATION_ERROR, where the CORS plugin would
 * answer plain text. A route that takes no part in CORS (`config: { cors: false }`: CalDAV, whose
 * OPTIONS is a calendar app's capability probe) gets its OPTIONS itself. (Bodies have their bounds
 * in `request-body.ts`.)
 */
export const httpEdgesPlugin = fp(
  async (app: FastifyInstance) => {
    // A callback hook: an async one costs a promise and a microtask on every request.
    app.addHook('onRequest', (request, _reply, done) => {
      const preflight = request.method === 'OPTIONS' && request.routeOptions.config?.cors !== false;
      if (preflight && (!request.headers.origin || !request.headers['access-control-request-method'])) {
        done(new DomainError('VALIDATION_ERROR', 'Invalid CORS preflight: Origin and Access-Control-Request-Method are required'));
        return;
      }
      done();
    });
  },
  { name: 'calsync-http-edges' },
);
