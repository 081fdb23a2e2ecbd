import { DomainError } from '@calsync/domain';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { PassThrough, type Readable } from 'node:stream';

/** A body that stops arriving for this long (fewer bytes than its Content-Length, a stalled upload) is refused. */
export const BODY_IDLE_TIMEOUT_MS = 5_000;
/**
 * A body over the limit is read and dropped up to this many bytes before the 413 goes out, so a
 * client that writes its whole body before reading the answer (node:http, undici, curl) reads the
 * 413 instead of a broken pipe. A larger body gets the 413 at once and the connection is closed.
 */
export const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

/** How a drained body ended: all read, more than the drain bound, no data for the idle time, or the connection failed. */
type DrainEnd = 'ended' | 'over' | 'idle' | 'error';

/** Reads and drops the rest of `payload`, `already` bytes of it counted, within the drain bound and the idle timeout. */
function drain(payload: Readable, already: number): Promise<DrainEnd> {
  return new Promise((resolve) => {
    let dropped = already;
    let timer: NodeJS.Timeout | undefined;
    const finish = (end: DrainEnd): void => {
      clearTimeout(timer);
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
      payload.removeListener('close', onClose);
      if (end !== 'ended') payload.pause();
      resolve(end);
    };
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => finish('idle'), BODY_IDLE_TIMEOUT_MS);
    };
    const onData = (chunk: Buffer): void => {
      dropped += chunk.length;
      if (dropped > DRAIN_LIMIT_BYTES) finish('over');
      else arm();
    };
    const onEnd = (): void => finish('ended');
    const onError = (): void => finish('error');
    const onClose = (): void => finish(payload.readableEnded ? 'ended' : 'error');
    arm();
    payload.on('data', onData);
    payload.once('end', onEnd);
    payload.once('error', onError);
    payload.once('close', onClose);
    payload.resume();
  });
}

/** The 413 of a body over `limit`; a body not read to its end also closes the connection after the answer. */
function tooLarge(reply: FastifyReply, limit: number, end: DrainEnd): DomainError {
  if (end !== 'ended') reply.header('connection', 'close');
  return new DomainError('PAYLOAD_TOO_LARGE', `Request body exceeds ${limit} bytes`);
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}

/**
 * preParsing of every route with a body. A body whose Content-Length is over the route's limit is
 * read and dropped (up to `DRAIN_LIMIT_BYTES`) and then answered 413 PAYLOAD_TOO_LARGE; a body
 * without a length (chunked) flows to the parser up to the limit and past it is drained the same
 * way. Every body still arriving flows through a stream that fails with 400 VALIDATION_ERROR when
 * no byte arrives for `BODY_IDLE_TIMEOUT_MS`, so a body shorter than its Content-Length gets an
 * answer (and its socket is released) instead of waiting forever; a body all there already goes
 * to the parser untouched.
 */
async function boundedBody(request: FastifyRequest, reply: FastifyReply, payload: Readable): Promise<Readable> {
  if (!hasBody(request)) return payload;
  const limit = request.routeOptions.bodyLimit ?? Number.POSITIVE_INFINITY;
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(reply, limit, await drain(payload, 0));
  // The whole declared body has arrived already (a small push comes in the packet of its headers;
  // Node's parser never passes more than Content-Length): it can neither stall nor outgrow the
  // limit, so the parser reads it as it is, without a stream and timers around it.
  if (Number.isFinite(declared) && payload.readableLength >= declared) return payload;

  const out = new PassThrough() as PassThrough & { receivedEncodedLength?: number };
  // Fastify listens for errors while it parses; after that (an early answer) nobody needs them.
  out.on('error', () => {});
  let received = 0;
  let timer: NodeJS.Timeout | undefined;
  const stop = (error: DomainError): void => {
    clearTimeout(timer);
    payload.removeListener('data', onData);
    out.destroy(error);
  };
  // One timer per body, pushed back (refresh) at each chunk rather than made anew.
  const arm = (): void => {
    if (timer === undefined) {
      timer = setTimeout(
        () => stop(new DomainError('VALIDATION_ERROR', `Request body incomplete: no data for ${BODY_IDLE_TIMEOUT_MS / 1000} s (shorter than its Content-Length?)`)),
        BODY_IDLE_TIMEOUT_MS,
      );
    } else {
      timer.refresh();
    }
  };
  const onData = (chunk: Buffer): void => {
    received += chunk.length;
    if (received > limit) {
      clearTimeout(timer);
      payload.removeListener('data', onData);
      payload.pause();
      void drain(payload, received).then((end) => out.destroy(tooLarge(reply, limit, end)));
      return;
    }
    out.receivedEncodedLength = received;
    arm();
    if (!out.write(chunk)) {
      payload.pause();
      out.once('drain', () => payload.resume());
    }
  };
  arm();
  payload.on('data', onData);
  payload.once('end', () => {
    clearTimeout(timer);
    if (received <= limit) out.end();
  });
  payload.once('error', (e) => stop(e instanceof DomainError ? e : new DomainError('VALIDATION_ERROR', 'Request body could not be read')));
  payload.once('close', () => clearTimeout(timer));
  // An answer sent before the body was read (a 401 at onRequest, say): drop the rest of it the same way.
  reply.raw.once('finish', () => {
    clearTimeout(timer);
    if (!payload.readableEnded) {
      payload.removeListener('data', onData);
      void drain(payload, received).then((end) => {
        if (end !== 'ended') destroySocket(payload);
      });
    }
  });
  return out;
}

/** Cuts the connection a body arrives on (app.inject's stand-in socket has no destroy()). */
function destroySocket(payload: Readable): void {
  const socket = (payload as Readable & { socket?: { destroy?: () => void } }).socket;
  if (typeof socket?.destroy === 'function') socket.destroy();
}

/** Request bodies with bounds: the 413 a client can read, and stalled bodies that time out (see `boundedBody`). */
export const requestBodyPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('preParsing', boundedBody);
  },
  { name: 'calsync-request-body' },
);
