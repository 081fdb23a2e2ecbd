import { createRequire } from 'node:module';
import type { SSEPluginOptions } from '@fastify/sse';
import { DomainError, parseVersion } from '@calsync/domain';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { requireAuth } from '../auth-context.js';
import type { StreamEvent, StreamHub } from '../streams/stream-hub.js';
import { operation } from './operation.js';

// @fastify/sse is CommonJS: its module.exports is the fastify-plugin-wrapped plugin (its `default`
// is the bare function, which would hide the route hook inside its own context), so load exactly that.
const ssePlugin = createRequire(import.meta.url)('@fastify/sse') as FastifyPluginAsync<SSEPluginOptions>;

/** Comment line interval that keeps proxies from closing an idle stream. */
export const STREAM_HEARTBEAT_MS = 25_000;

/** Options of the stream route. */
export interface StreamRoutesOptions {
  readonly hub: StreamHub;
  readonly newestVersion: (userId: number) => Promise<bigint>;
  /** Heartbeat interval (tests shorten it). */
  readonly heartbeatMs?: number;
}

/** `Last-Event-ID` as a version: absent or empty is null; anything but a decimal version is 400. */
export function parseLastEventId(request: FastifyRequest): bigint | null {
  const raw = request.headers['last-event-id'];
  if (raw === undefined || raw === '') return null;
  const version = parseVersion(raw);
  if (version === null) {
    throw new DomainError('VALIDATION_ERROR', 'Last-Event-ID must be a version (the id of a changed event)', [{ path: 'headers/last-event-id', message: 'must be a decimal version' }]);
  }
  return version;
}

/** The wire form of a hub event. */
function toMessage(e: StreamEvent): { event: string; data: unknown; id?: string } {
  if (e.event === 'closed') return { event: 'closed', data: { reason: e.reason } };
  if ('data' in e) return { event: e.event, data: e.data };
  const version = e.version.toString();
  return e.event === 'changed' ? { id: version, event: 'changed', data: { version } } : { event: 'ready', data: { version } };
}

/**
 * GET /api/sync/stream: the data-changed notification stream (text/event-stream). Authenticated
 * and counted against the per-user rate limit when it opens; while open it costs nothing more.
 */
export async function streamRoutes(app: FastifyInstance, opts: StreamRoutesOptions): Promise<void> {
  await app.register(ssePlugin, { heartbeatInterval: opts.heartbeatMs ?? STREAM_HEARTBEAT_MS });
  app.get(
    '/api/sync/stream',
    {
      onRequest: app.authenticate,
      preHandler: app.userRateLimit,
      sse: { kind: 'manual' },
      schema: {
        ...operation('openStream'),
        description: [
          'Answers `text/event-stream`. First `event: ready` with `data: {"version":"<newest change version of this user>"}`;',
          'then `event: changed` with `data: {"version":"<v>"}` and `id: <v>` after every committed push or restore of this',
          'user that changed something, to every stream of the user except the device that made the change. A comment line',
          'every 25 s keeps proxies open. Ends with `event: closed`, `data: {"reason":"expired"|"revoked"|"shutdown"}` when',
          'the access token expires, the device or session is revoked (logout included), or the server drains.',
          'A `Last-Event-ID` older than the newest version gets an immediate `changed`. At most STREAM_MAX_PER_USER streams',
          'per user (429) and STREAM_MAX_CONNECTIONS per server (503 TOO_MANY_STREAMS). Opening counts against the per-user',
          'rate limit; an open stream does not.',
          'When a reminder of the user falls due (and eventReminders is on) every stream gets `event: reminder` with',
          '`data: {"reminderUid","eventUid"|"taskUid","occurrenceStart","title","start","dueAt"}`; when a push of another device',
          'creates a conflict (and conflictAlerts is on), `event: conflict` with `data: {"conflictId","entityType","entityUid"}`.',
        ].join(' '),
        headers: {
          type: 'object',
          properties: { 'last-event-id': { type: 'string', description: 'The id of the last `changed` event received (a version).' } },
        },
        response: {
          200: {
            description: 'The event stream (`ready`, `changed`, `reminder`, `conflict`, `closed` events; data as shown).',
            content: {
              'text/event-stream': {
                schema: { type: 'string', examples: ['event: ready\ndata: {"version":"41"}\n\nid: 42\nevent: changed\ndata: {"version":"42"}\n\n'] },
              },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      const lastEventId = parseLastEventId(request);
      const slot = await opts.hub.admit(auth);
      let newest: bigint;
      try {
        newest = await opts.newestVersion(auth.userId);
      } catch (error) {
        slot.release();
        throw error;
      }
      reply.sse.keepAlive();
      reply.sse.onClose(() => slot.release());
      slot.attach(
        {
          write: (e) => void reply.sse.send(toMessage(e)).catch(() => slot.release()),
          end: () => reply.sse.close(),
        },
        newest,
        lastEventId,
      );
      if (!reply.sse.isConnected) slot.release();
    },
  );
}
