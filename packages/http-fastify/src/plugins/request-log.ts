import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import { failureCodeOf } from './error-handling.js';

/** Probes and scrapes: asked every few seconds by machines, so their lines go to debug. */
export function isMonitoringRoute(url: string): boolean {
  return url === '/metrics' || url === '/health' || url.startsWith('/health/');
}

/** The route pattern of a request (`/api/sync/conflicts/:id/resolve`), or `unmatched` for a 404. */
export function routeOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? 'unmatched';
}

/**
 * Fastify's request logging, made one line per request, written when the answer has gone out:
 * method, route pattern, status, duration, the request id (pino's reqId) and the user id when the
 * caller signed in, plus the error code of a failure. Info level, except /health* and /metrics at
 * debug. (Fastify's default is two lines, "incoming request" and "request completed", at info.)
 */
export class OneLineRequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const route = routeOf(request);
    const level = isMonitoringRoute(route) ? 'debug' : 'info';
    // Below the configured level (LOG_LEVEL=warn, say) the line is not built at all. (pino has
    // isLevelEnabled; Fastify's stand-in logger, when logging is off, has no levels to ask.)
    const log = request.log as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };
    if (!error && log.isLevelEnabled !== undefined && !log.isLevelEnabled(level)) return;
    const code = failureCodeOf(request);
    const fields = {
      method: request.method,
      route,
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 10) / 10,
      ...(request.auth ? { userId: request.auth.userId } : {}),
      ...(code === null ? {} : { code }),
    };
    const message = `${request.method} ${route} ${reply.statusCode}`;
    // An error here is the response stream failing after the answer began: worth its own line.
    if (error) request.log.error({ ...fields, err: error }, `${message} (response failed)`);
    else request.log[level](fields, message);
  }
}
