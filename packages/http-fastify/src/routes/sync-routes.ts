import {
  DomainError,
  FIELD_TABLES,
  parseBaseVersion,
  RECORD_TYPES,
  type ConflictPage,
  type EncodedPullResponse,
  type PullPageFields,
  type PullResponse,
  type PushChangeset,
  type PushResponse,
  type ResolveResponse,
  type PushItem,
  type RecordType,
  type SyncApi,
} from '@calsync/domain';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { requireAuth } from '../auth-context.js';
import type { AppConfig } from '../config-types.js';
import { ok } from '../envelope.js';
import { etagOf, privateCacheOnSend } from '../plugins/private-cache.js';
import {
  conflictListQuerySchema,
  conflictPageSchema,
  type ConflictPageWire,
  type PushResponseWire,
  type ResolveResponseWire,
  envelopeSchema,
  MAX_PUSH_ITEMS_PER_ARRAY,
  pullQuerySchema,
  pullResponseSchema,
  pushBodySchema,
  pushResponseSchema,
  resolveBodySchema,
  resolveParamsSchema,
  resolveResponseSchema,
} from '@calsync/wire';
import { operation } from './operation.js';

/** Options of the sync routes: the engine and the configuration (rate limit). */
export interface SyncRoutesOptions {
  readonly sync: SyncApi;
  readonly config: AppConfig;
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
 * The engine's answer typed as the wire's exact type. The domain types a record loosely (any
 * field name, see WireRecord) while the wire schema lists every field; the compiler checks that
 * the exact type fits the domain's (wire/src/type-checks.ts) and the e2e run validates every
 * answer against the published document, so this is the one place the two meet.
 */
function asWire<W>(value: PushResponse | ConflictPage | ResolveResponse): W {
  return value as unknown as W;
}

/**
 * The body of a pull answer: `JSON.stringify(ok(decodePull(page)))` (the success envelope of the
 * `PullResponse` the page stands for, keys in the wire schema's order) as UTF-8 bytes, written
 * around each record's JSON text instead of parsing and re-encoding them. The route tests compare
 * it with that for pages with and without records.
 */
export function pullBody(page: EncodedPullResponse): Buffer {
  const { records: encoded, ...fields } = page;
  const parts: string[] = ['{"success":true,"data":{'];
  for (const type of RECORD_TYPES) {
    parts.push(`${JSON.stringify(type)}:[`);
    encoded[type].forEach((text, i) => {
      if (i > 0) parts.push(',');
      parts.push(text);
    });
    parts.push('],');
  }
  // The other fields as `decodePull` spreads them: `{"cursorReset":…}` without its opening brace.
  parts.push(JSON.stringify(fields).slice(1), '}');
  return utf8Of(parts);
}

/**
 * The UTF-8 bytes of `parts` one after another, written into one Buffer. A page of a thousand
 * events is about half a megabyte of text in a thousand pieces: joining them into one string
 * first would copy it twice more (the joined string, then its encoding when sent).
 */
function utf8Of(parts: readonly string[]): Buffer {
  let length = 0;
  for (const part of parts) length += Buffer.byteLength(part);
  const out = Buffer.allocUnsafe(length);
  let at = 0;
  for (const part of parts) at += out.write(part, at);
  return out;
}

/**
 * The ETag of a pull page, from what names it instead of a hash of its bytes (a page of a thousand
 * events is about a megabyte): the user, the cursor it was asked from, the cursor it answers (each
 * type's watermark, where the page ended), the page's other fields (`PullPageFields`: `hasMore`,
 * `cursorReset`, `newestConflictId`) and its length. A record's JSON is fixed by its version
 * (every change of a record gives it a new one, and a version is never reused), so two pages
 * between the same cursors hold the same records; any change below the answered cursor moves that
 * cursor, and a record purged since (retention) shortens the page.
 */
export function pullEtag(userId: number, cursor: string | undefined, page: EncodedPullResponse, body: Buffer): string {
  const { records: _records, ...fields } = page;
  return etagOf(JSON.stringify([userId, cursor ?? null, fields, body.length]));
}

/** A pull page with each record encoded, for an engine without `pullEncoded`. */
function encodePull(page: PullResponse): EncodedPullResponse {
  const records = {} as Record<RecordType, string[]>;
  const fields: Partial<PullResponse> = { ...page };
  for (const type of RECORD_TYPES) {
    records[type] = page[type].map((record) => JSON.stringify(record));
    delete fields[type];
  }
  return { records, ...(fields as PullPageFields) };
}

/**
 * preValidation of push: refuses an array of more than 1000 items with 413 BATCH_TOO_LARGE before
 * the (costly) per-item schema validation runs, so a huge batch is cheap to refuse. A callback
 * hook: an async one costs a promise per request.
 */
export function refuseOversizedBatch(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const body = request.body;
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    for (const type of RECORD_TYPES) {
      const arr = (body as Record<string, unknown>)[type];
      if (Array.isArray(arr) && arr.length > MAX_PUSH_ITEMS_PER_ARRAY) {
        done(
          new DomainError('BATCH_TOO_LARGE', `${type} has ${arr.length} items; at most ${MAX_PUSH_ITEMS_PER_ARRAY} per array, split the batch`, {
            array: type,
            items: arr.length,
            max: MAX_PUSH_ITEMS_PER_ARRAY,
          }),
        );
        return;
      }
    }
  }
  done();
}

/**
 * The sync routes under /api/sync (docs/protocol.md). All are protected
 * (authenticated at onRequest, before the body is even parsed) and limited per user.
 */
export async function syncRoutes(parent: FastifyInstance, opts: SyncRoutesOptions): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  // Response schemas here document the API; serialising with JSON.stringify keeps every record
  // field (fast-json-stringify would drop keys a schema does not list). Scoped to this plugin.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  app.post(
    '/api/sync/push',
    {
      onRequest: app.authenticate,
      preValidation: refuseOversizedBatch,
      // NUL and the like in an item's fields are that item's INVALID_FIELD (domain), not a 400.
      config: { textCheckedPerItem: true },
      preHandler: app.userRateLimit,
      schema: { ...operation('pushChanges'), body: pushBodySchema, response: { 200: envelopeSchema(pushResponseSchema) } },
    },
    async (request) => {
      const { userId, deviceUid } = requireAuth(request);
      const body = request.body as Partial<Record<RecordType, RawItem[]>>;
      const changeset: Partial<Record<RecordType, PushItem[]>> = {};
      let total = 0;
      for (const type of RECORD_TYPES) {
        const items = body[type];
        if (items === undefined) continue;
        items.forEach((raw, i) => {
          // The schema checked the form; the domain's parser also refuses what no BIGINT holds.
          if (!parseBaseVersion(raw.baseVersion).ok) {
            throw new DomainError('VALIDATION_ERROR', 'Request validation failed', [{ path: `body/${type}/${i}/baseVersion`, message: 'must be a 64-bit version' }]);
          }
        });
        changeset[type] = items.map((raw) => toPushItem(type, raw));
        total += items.length;
      }
      if (total === 0) throw new DomainError('EMPTY_CHANGESET', 'The changeset is empty: send at least one item');
      const response = await opts.sync.push(userId, changeset as PushChangeset, deviceUid);
      app.syncMetrics.recordPush(response);
      return ok(asWire<PushResponseWire>(response));
    },
  );

  app.get(
    '/api/sync/changes',
    {
      onRequest: app.authenticate,
      onSend: privateCacheOnSend,
      preHandler: app.userRateLimit,
      schema: { ...operation('pullChanges'), querystring: pullQuerySchema, response: { 200: envelopeSchema(pullResponseSchema) } },
    },
    async (request, reply) => {
      const { userId } = requireAuth(request);
      const query = request.query;
      const cursor = query.cursor === undefined || query.cursor === '' ? undefined : query.cursor;
      // The engine clamps limit to its page limits; the schema has made it an integer.
      const asked = { ...(cursor === undefined ? {} : { cursor }), ...(query.limit === undefined ? {} : { limit: query.limit }) };
      const page = opts.sync.pullEncoded === undefined ? encodePull(await opts.sync.pull(userId, asked)) : await opts.sync.pullEncoded(userId, asked);
      app.syncMetrics.recordPull(page, cursor !== undefined);
      // The records are JSON text already (the store built them): the body is written around them.
      const body = pullBody(page);
      reply.header('etag', pullEtag(userId, cursor, page, body));
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );

  app.get(
    '/api/sync/conflicts',
    {
      onRequest: app.authenticate,
      onSend: privateCacheOnSend,
      preHandler: app.userRateLimit,
      schema: { ...operation('listConflicts'), querystring: conflictListQuerySchema, response: { 200: envelopeSchema(conflictPageSchema) } },
    },
    async (request) => {
      const { userId } = requireAuth(request);
      const { afterId, limit } = request.query;
      const page = await opts.sync.listConflicts(userId, { ...(afterId === undefined ? {} : { afterId }), ...(limit === undefined ? {} : { limit }) });
      return ok(asWire<ConflictPageWire>(page));
    },
  );

  app.post(
    '/api/sync/conflicts/:id/resolve',
    {
      onRequest: app.authenticate,
      preHandler: app.userRateLimit,
      schema: { ...operation('resolveConflict'), params: resolveParamsSchema, body: resolveBodySchema, response: { 200: envelopeSchema(resolveResponseSchema) } },
    },
    async (request) => {
      const { userId, deviceUid } = requireAuth(request);
      return ok(asWire<ResolveResponseWire>(await opts.sync.resolveConflict(userId, request.params.id, request.body.action, deviceUid)));
    },
  );
}
