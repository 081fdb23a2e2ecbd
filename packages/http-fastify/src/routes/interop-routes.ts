import type { AppPasswordService, FeedService, SyncApi } from '@calsync/domain';
import { DomainError, ErrorCode } from '@calsync/domain';
import { renderCalendar } from '@calsync/ical';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  appPasswordBodySchema,
  appPasswordResultSchema,
  createdFeedSchema,
  envelopeSchema,
  feedBodySchema,
  feedFileParamsSchema,
  feedListSchema,
  feedParamsSchema,
  revokeResult,
} from '@calsync/wire';
import { requireAuth } from '../auth-context.js';
import { ok } from '../envelope.js';
import { calendarZoneOf, eventObjectOf, groupObjects } from '../ical/objects.js';
import { privateCacheOnSend } from '../plugins/private-cache.js';
import { operation } from './operation.js';

/** Options of the interoperability routes: app passwords, feeds, and the engine that reads the calendars. */
export interface InteropRoutesOptions {
  readonly appPasswords: AppPasswordService;
  readonly feeds: FeedService;
  readonly sync: Pick<SyncApi, 'readObjects'>;
}

/** The origin a feed URL starts with: the request's own (scheme, host and port as the client used them). */
function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/**
 * App passwords (POST /api/auth/app-passwords) and subscription feeds: /api/feeds to make, list
 * and end them, and the feed itself at /feeds/<token>.ics (no Bearer: the token is the secret),
 * iCalendar with a VTIMEZONE for each zone used, an ETag and 304.
 */
export async function interopRoutes(parent: FastifyInstance, opts: InteropRoutesOptions): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/auth/app-passwords',
    {
      onRequest: app.authenticate,
      preHandler: app.userRateLimit,
      schema: { ...operation('createAppPassword'), body: appPasswordBodySchema, response: { 200: envelopeSchema(appPasswordResultSchema) } },
    },
    async (request) => ok(await opts.appPasswords.create(requireAuth(request), request.body.name)),
  );

  app.post(
    '/api/feeds',
    {
      onRequest: app.authenticate,
      preHandler: app.userRateLimit,
      schema: { ...operation('createFeed'), body: feedBodySchema, response: { 200: envelopeSchema(createdFeedSchema) } },
    },
    async (request) => {
      const { feed, token } = await opts.feeds.create(requireAuth(request).userId, request.body.calendarUid);
      return ok({ id: feed.id, calendarUid: feed.calendarUid, createdAt: feed.createdAt, url: `${originOf(request)}/feeds/${token}.ics` });
    },
  );

  app.get(
    '/api/feeds',
    {
      onRequest: app.authenticate,
      onSend: privateCacheOnSend,
      preHandler: app.userRateLimit,
      schema: { ...operation('listFeeds'), response: { 200: envelopeSchema(feedListSchema) } },
    },
    async (request) => ok({ feeds: (await opts.feeds.list(requireAuth(request).userId)).map((f) => ({ id: f.id, calendarUid: f.calendarUid, createdAt: f.createdAt })) }),
  );

  app.delete(
    '/api/feeds/:id',
    {
      onRequest: app.authenticate,
      preHandler: app.userRateLimit,
      schema: { ...operation('deleteFeed'), params: feedParamsSchema, response: { 200: envelopeSchema(revokeResult) } },
    },
    async (request) => {
      await opts.feeds.revoke(requireAuth(request).userId, request.params.id);
      return ok({ revoked: true as const });
    },
  );

  app.get(
    '/feeds/:file',
    {
      onRequest: app.feedIpRateLimit,
      onSend: privateCacheOnSend,
      schema: {
        ...operation('getFeed'),
        params: feedFileParamsSchema,
        response: { 200: { description: 'the calendar as iCalendar', content: { 'text/calendar': { schema: { type: 'string' } } } } },
      },
    },
    async (request, reply) => {
      const file = request.params.file;
      const feed = file.endsWith('.ics') ? await opts.feeds.open(file.slice(0, -4)) : null;
      if (feed === null) throw new DomainError(ErrorCode.NOT_FOUND, 'no such feed');
      const rows = await opts.sync.readObjects(feed.userId, { calendarUid: feed.calendarUid });
      const calendar = rows.calendars.find((c) => c.uid === feed.calendarUid);
      if (calendar === undefined) throw new DomainError(ErrorCode.NOT_FOUND, 'no such feed');
      const events = groupObjects(rows)
        .filter((o) => o.root.deleted === null)
        .map(eventObjectOf);
      const body = renderCalendar({ events, calendarZone: calendarZoneOf(rows, feed.calendarUid), name: String(calendar.fields.name) });
      return reply.type('text/calendar; charset=utf-8').send(body);
    },
  );
}
