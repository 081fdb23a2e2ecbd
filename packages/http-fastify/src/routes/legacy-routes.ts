import type { LegacyStatsStore } from '@calsync/domain';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../auth-context.js';
import type { AppConfig } from '../config-types.js';
import { ok } from '../envelope.js';
import { privateCacheOnSend } from '../plugins/private-cache.js';
import { envelopeSchema } from '@calsync/wire';
import { operation } from './operation.js';

/** Options of the legacy routes. */
export interface LegacyRoutesOptions {
  readonly stats: LegacyStatsStore;
  readonly config: AppConfig;
}

const statsSchema = Type.Object({
  calendars: Type.Integer(),
  events: Type.Integer(),
  tasks: Type.Integer(),
  reminders: Type.Integer(),
  unresolvedConflicts: Type.Integer(),
  devices: Type.Integer(),
  lastSyncTime: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  syncStatus: Type.Object({ SYNCED: Type.Integer(), PENDING: Type.Integer(), CONFLICT: Type.Integer() }),
});

/**
 * The older per-event protocol's two routes (docs/api.md): stats reads syncStatus and
 * lastSyncTime, reset-sync (a debugging tool) resets them. Neither touches versions.
 */
export async function legacyRoutes(app: FastifyInstance, opts: LegacyRoutesOptions): Promise<void> {
  app.get(
    '/api/users/stats',
    {
      onRequest: app.authenticate,
      onSend: privateCacheOnSend,
      preHandler: app.userRateLimit,
      schema: { ...operation('getStats'), response: { 200: envelopeSchema(statsSchema) } },
    },
    async (request) => ok(await opts.stats.stats(requireAuth(request).userId)),
  );
  app.post(
    '/api/users/reset-sync',
    {
      onRequest: app.authenticate,
      preHandler: app.userRateLimit,
      schema: { ...operation('resetSync'), response: { 200: envelopeSchema(Type.Object({ reset: Type.Literal(true), eventsReset: Type.Integer() })) } },
    },
    async (request) => ok({ reset: true as const, eventsReset: await opts.stats.resetSync(requireAuth(request).userId) }),
  );
}
