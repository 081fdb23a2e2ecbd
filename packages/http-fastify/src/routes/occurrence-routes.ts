import type { SyncApi } from '@calsync/domain';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { envelopeSchema, occurrencePageSchema, occurrencesQuerySchema } from '@calsync/wire';
import { requireAuth } from '../auth-context.js';
import { ok } from '../envelope.js';
import { privateCacheOnSend } from '../plugins/private-cache.js';
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
  app.get(
    '/api/occurrences',
    {
      onRequest: app.authenticate,
      onSend: privateCacheOnSend,
      preHandler: app.userRateLimit,
      schema: { ...operation('listOccurrences'), querystring: occurrencesQuerySchema, response: { 200: envelopeSchema(occurrencePageSchema) } },
    },
    async (request) => {
      const { userId } = requireAuth(request);
      const { from, to, tz, calendarUid } = request.query;
      const page = await opts.sync.occurrences(userId, {
        from,
        to,
        ...(tz === undefined ? {} : { tz }),
        ...(calendarUid === undefined ? {} : { calendarUids: [calendarUid] }),
      });
      return ok(page);
    },
  );
}
