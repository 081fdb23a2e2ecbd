import {
  clampToBounds,
  DomainError,
  PAGE_LIMITS,
  type QueryBounds,
  FIELD_TABLES,
  MAX_VERSION,
  RECORD_TYPES,
  type PushChangeset,
  type PushItem,
  type RecordType,
  type SyncApi,
} from '@calsync/domain';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireAuth } from '../auth-context.js';
import type { AppConfig } from '../config-types.js';
import { ok } from '../envelope.js';
import { privateCacheOnSend } from '../plugins/private-cache.js';
import { MAX_PUSH_ITEMS_PER_ARRAY, pushBodySchema } from '@calsync/wire';
import {
  conflictListQuerySchema,
  conflictPageSchema,
  envelopeSchema,
  errorEnvelopeSchema,
  pullQuerySchema,
  pullResponseSchema,
  pushResponseSchema,
  resolveBodySchema,
  resolveParamsSchema,
  resolveResponseSchema,
} from '@calsync/wire';

/** Options of the sync routes: the engine and the configuration (rate limit). */
export interface SyncRoutesOptions {
  readonly sync: SyncApi;
  readonly config: AppConfig;
}

/** An integer query value (already checked by the schema) parsed and clamped by the domain's limits table. */
function queryInt(text: string | undefined, bounds: QueryBounds): number {
  return clampToBounds(text === undefined ? undefined : Number(text), bounds);
}

type RawItem = Readonly<Record<string, unknown>> & { uid: string; op: 'upsert' | 'delete'; baseVersion?: string | null };

/** Keeps only the item's record fields (the table's names); ignored stamps are dropped. */
function toPushItem(type: RecordType, raw: RawItem): PushItem {
  const fields: Record<string, unknown> = {};
  for (const f of FIELD_TABLES[type]) {
    if (Object.hasOwn(raw, f.name)) fields[f.name] = raw[f.name];
  }
  return { uid: raw.uid, op: raw.op, baseVersion: raw.baseVersion ?? null, fields };
}

/**
 * preValidation of push: refuses an array of more than 1000 items with 413 BATCH_TOO_LARGE before
 * the (costly) per-item schema validation runs, so a huge batch is cheap to refuse.
 */
export async function refuseOversizedBatch(request: FastifyRequest): Promise<void> {
  const body = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
  for (const type of RECORD_TYPES) {
    const arr = (body as Record<string, unknown>)[type];
    if (Array.isArray(arr) && arr.length > MAX_PUSH_ITEMS_PER_ARRAY) {
      throw new DomainError('BATCH_TOO_LARGE', `${type} has ${arr.length} items; at most ${MAX_PUSH_ITEMS_PER_ARRAY} per array, split the batch`, {
        array: type,
        items: arr.length,
        max: MAX_PUSH_ITEMS_PER_ARRAY,
      });
    }
  }
}

const errors = { 400: errorEnvelopeSchema, 401: errorEnvelopeSchema, 429: errorEnvelopeSchema };

/**
 * The sync routes under /api/sync (spec "Synchronisation routes"). All are protected
 * (authenticated at onRequest, before the body is even parsed) and limited per user.
 */
export async function syncRoutes(parent: FastifyInstance, opts: SyncRoutesOptions): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  // Response schemas here document the API; serialising with JSON.stringify keeps every record
  // field (fast-json-stringify would drop keys a schema does not list). Scoped to this plugin.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  const security = [{ bearerAuth: [] }];

  app.post(
    '/api/sync/push',
    {
      onRequest: app.authenticate,
      preValidation: refuseOversizedBatch,
      // NUL and the like in an item's fields are that item's INVALID_FIELD (domain), not a 400.
      config: { textCheckedPerItem: true },
      preHandler: app.userRateLimit,
      schema: {
        tags: ['sync'],
        summary: 'Push local changes (per-item results; conflicts are results, HTTP 200)',
        security,
        body: pushBodySchema(),
        response: { 200: envelopeSchema(pushResponseSchema), ...errors, 413: errorEnvelopeSchema },
      },
    },
    async (request) => {
      const { userId } = requireAuth(request);
      const body = request.body as Partial<Record<RecordType, RawItem[]>>;
      const changeset: Partial<Record<RecordType, PushItem[]>> = {};
      let total = 0;
      for (const type of RECORD_TYPES) {
        const items = body[type];
        if (items === undefined) continue;
        items.forEach((raw, i) => {
          if (typeof raw.baseVersion === 'string' && BigInt(raw.baseVersion) > MAX_VERSION) {
            throw new DomainError('VALIDATION_ERROR', 'Request validation failed', [{ path: `body/${type}/${i}/baseVersion`, message: 'must be a 64-bit version' }]);
          }
        });
        changeset[type] = items.map((raw) => toPushItem(type, raw));
        total += items.length;
      }
      if (total === 0) throw new DomainError('EMPTY_CHANGESET', 'The changeset is empty: send at least one item');
      const response = await opts.sync.push(userId, changeset as PushChangeset);
      app.syncMetrics.recordPush(response);
      return ok(response);
    },
  );

  app.get(
    '/api/sync/changes',
    {
      onRequest: app.authenticate,
      onSend: privateCacheOnSend,
      preHandler: app.userRateLimit,
      schema: {
        tags: ['sync'],
        summary: 'Pull changes after the cursor (full snapshot with cursorReset when it is missing or invalid)',
        security,
        querystring: pullQuerySchema,
        response: { 200: envelopeSchema(pullResponseSchema), ...errors },
      },
    },
    async (request) => {
      const { userId } = requireAuth(request);
      const query = request.query as { cursor?: string; limit?: string };
      const cursor = query.cursor === undefined || query.cursor === '' ? undefined : query.cursor;
      const response = await opts.sync.pull(userId, { ...(cursor === undefined ? {} : { cursor }), limit: queryInt(query.limit, PAGE_LIMITS.pull) });
      app.syncMetrics.recordPull(response, cursor !== undefined);
      return ok(response);
    },
  );

  app.get(
    '/api/sync/conflicts',
    {
      onRequest: app.authenticate,
      onSend: privateCacheOnSend,
      preHandler: app.userRateLimit,
      schema: {
        tags: ['sync'],
        summary: 'Unresolved conflicts with conflictId > afterId, ascending',
        security,
        querystring: conflictListQuerySchema,
        response: { 200: envelopeSchema(conflictPageSchema), ...errors },
      },
    },
    async (request) => {
      const { userId } = requireAuth(request);
      const query = request.query as { afterId?: string; limit?: string };
      return ok(await opts.sync.listConflicts(userId, { afterId: queryInt(query.afterId, PAGE_LIMITS.conflictAfterId), limit: queryInt(query.limit, PAGE_LIMITS.conflicts) }));
    },
  );

  app.post(
    '/api/sync/conflicts/:id/resolve',
    {
      onRequest: app.authenticate,
      preHandler: app.userRateLimit,
      schema: {
        tags: ['sync'],
        summary: 'Resolve a conflict: restore the loser snapshot or dismiss it',
        security,
        params: resolveParamsSchema,
        body: resolveBodySchema,
        response: { 200: envelopeSchema(resolveResponseSchema), ...errors, 404: errorEnvelopeSchema, 409: errorEnvelopeSchema },
      },
    },
    async (request) => {
      const { userId } = requireAuth(request);
      const { id } = request.params as { id: string };
      const { action } = request.body as { action: 'restore' | 'dismiss' };
      return ok(await opts.sync.resolveConflict(userId, Number(id), action));
    },
  );
}
