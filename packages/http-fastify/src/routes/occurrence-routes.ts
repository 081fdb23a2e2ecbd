import type { OccurrencePage, SyncApi } from '@calsync/domain';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { envelopeSchema, occurrencePageSchema, occurrencesQuerySchema } from '@calsync/wire';
import { requireAuth } from '../auth-context.js';
import { ok } from '../envelope.js';
import { etagOf, privateCacheOnSend } from '../plugins/private-cache.js';
import { operation } from './operation.js';

/** Options of the occurrence route: the engine that reads and expands. */
export interface OccurrenceRoutesOptions {
  readonly sync: Pick<SyncApi, 'occurrences'>;
}

/**
 * GET /api/occurrences (docs/protocol.md, "Occurrences"): what a calendar view of a window shows,
 * expanded by the domain's one expander. Protected, limited per user, and cached privately with
 * an ETag as the pull is.
 */
export async function occurrenceRoutes(parent: FastifyInstance, opts: OccurrenceRoutesOptions): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const bodies = new WeakMap<OccurrencePage, { readonly body: string; readonly etag: string }>();
  app.get(
    '/api/occurrences',
    {
      onRequest: app.authenticate,
      onSend: privateCacheOnSend,
      preHandler: app.userRateLimit,
      schema: { ...operation('listOccurrences'), querystring: occurrencesQuerySchema, response: { 200: envelopeSchema(occurrencePageSchema) } },
    },
    async (request, reply) => {
      const { userId } = requireAuth(request);
      const { from, to, tz, calendarUid } = request.query;
      const page = await opts.sync.occurrences(userId, {
        from,
        to,
        ...(tz === undefined ? {} : { tz }),
        ...(calendarUid === undefined ? {} : { calendarUids: [calendarUid] }),
      });
      // The engine answers the same page object while the user's data is unchanged: its body and
      // ETag are made once (the route's schema serializer, then the hash) and sent as they are.
      let sent = bodies.get(page);
      if (sent === undefined) {
        const body = String(reply.serialize(ok(page)));
        const made = { body, etag: etagOf(body) };
        bodies.set(page, made);
        sent = made;
      }
      // A string with a JSON content type is sent as it is (not serialized again); the type provider
      // only knows the envelope's object shape, hence the cast.
      return reply.header('etag', sent.etag).type('application/json; charset=utf-8').send(sent.body as never);
    },
  );
}
