import { DomainError } from '@calsync/domain';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import { errorEnvelope } from '../envelope.js';

/** A body that stops arriving for this long (fewer bytes than its Content-Length, a stalled upload) is refused. */
export const BODY_IDLE_TIMEOUT_MS = 5_000;
/**
 * After an answer sent before the body was read (413), the rest of the body is read and dropped, up
 * to this many bytes or `DRAIN_TIME_MS`, so a client still sending reads the answer instead of a
 * connection reset; beyond either bound the connection is closed.
 */
export const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;
export const DRAIN_TIME_MS = 30_000;

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

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}

/**
 * preParsing of every route with a body: the body flows through a stream that fails with 400
 * VALIDATION_ERROR when no byte arrives for `BODY_IDLE_TIMEOUT_MS`, so a body shorter than its
 * Content-Length gets an answer (and its socket is released) instead of waiting forever.
 */
async function bodyIdleTimeout(request: FastifyRequest, reply: FastifyReply, payload: Readable): Promise<Readable> {
  if (!hasBody(request)) return payload;
  const out = new PassThrough() as PassThrough & { receivedEncodedLength?: number };
  // Fastify listens for errors while it parses; after that (an early answer) nobody needs them.
  out.on('error', () => {});
  let received = 0;
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      payload.unpipe(out);
      out.destroy(new DomainError('VALIDATION_ERROR', `Request body incomplete: no data for ${BODY_IDLE_TIMEOUT_MS / 1000} s (shorter than its Content-Length?)`));
    }, BODY_IDLE_TIMEOUT_MS);
  };
  arm();
  payload.on('data', (chunk: Buffer) => {
    received += chunk.length;
    out.receivedEncodedLength = received;
    arm();
  });
  let ended = false;
  payload.on('end', () => {
    ended = true;
    clearTimeout(timer);
  });
  payload.on('close', () => clearTimeout(timer));
  payload.on('error', (e) => {
    clearTimeout(timer);
    out.destroy(e);
  });
  payload.pipe(out);
  reply.raw.once('finish', () => {
    clearTimeout(timer);
    if (!ended) drainRest(payload, out);
  });
  return out;
}

/** Reads and drops what is left of a body after the answer went out, within the drain bounds. */
function drainRest(payload: Readable, out: PassThrough): void {
  payload.unpipe(out);
  let dropped = 0;
  const socket = (payload as Readable & { socket?: Partial<Socket> }).socket;
  // app.inject's stand-in socket has no destroy(); only a real connection can be cut.
  const close = (): void => {
    if (typeof socket?.destroy === 'function') socket.destroy();
  };
  const stop = setTimeout(close, DRAIN_TIME_MS);
  stop.unref();
  payload.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DRAIN_LIMIT_BYTES) close();
  });
  payload.once('end', () => clearTimeout(stop));
  payload.once('close', () => clearTimeout(stop));
  payload.resume();
}

/**
 * HTTP edges in the error envelope: a CORS preflight without Origin (or without
 * Access-Control-Request-Method) is refused here as 400 VALIDATION_ERROR, where the CORS plugin would
 * answer plain text; and stalled bodies time out (see `bodyIdleTimeout`).
 */
export const httpEdgesPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRequest', async (request) => {
      if (request.method !== 'OPTIONS') return;
      if (!request.headers.origin || !request.headers['access-control-request-method']) {
        throw new DomainError('VALIDATION_ERROR', 'Invalid CORS preflight: Origin and Access-Control-Request-Method are required');
      }
    });
    app.addHook('preParsing', bodyIdleTimeout);
  },
  { name: 'calsync-http-edges' },
);
