import { ENTITY_TYPE, PAGE_LIMITS, RECORD_TYPES, type QueryBounds, type RecordType } from '@calsync/domain';
import { Type, type TSchema } from '@sinclair/typebox';
import { wireRecordSchema } from './record-schemas.js';

/** A query integer of any size: out-of-range values are clamped, not refused (spec "Limits"). */
export const CLAMPED_INTEGER_TEXT = '^-?[0-9]{1,64}$';

/** OpenAPI description of a clamped integer query value, read from the domain's limits table. */
const clampedDescription = (b: QueryBounds): string => `integer; clamped to ${b.min}..${b.max}; default ${b.default}`;

const itemResult = Type.Union([
  Type.Object({
    uid: Type.String(),
    status: Type.Union(['created', 'updated', 'deleted', 'conflict'].map((s) => Type.Literal(s))),
    id: Type.Optional(Type.Integer()),
    version: Type.Union([Type.String(), Type.Null()]),
    conflictId: Type.Optional(Type.Integer()),
  }),
  Type.Object({
    uid: Type.String(),
    status: Type.Literal('error'),
    error: Type.Object({ code: Type.String(), message: Type.String(), retryable: Type.Boolean() }),
  }),
]);

/** A conflict record on the wire. */
export const conflictSchema = Type.Object({
  conflictId: Type.Integer(),
  entityType: Type.Union(Object.values(ENTITY_TYPE).map((s) => Type.Literal(s))),
  entityUid: Type.String(),
  winnerVersion: Type.String(),
  loserSnapshot: Type.Object({ uid: Type.String(), version: Type.Union([Type.String(), Type.Null()]) }, { additionalProperties: true }),
  createdAt: Type.String(),
  resolvedAt: Type.Union([Type.String(), Type.Null()]),
});

function perType(make: (type: RecordType) => TSchema): Record<string, TSchema> {
  const props: Record<string, TSchema> = {};
  for (const type of RECORD_TYPES) props[type] = make(type);
  return props;
}

/** `data` of POST /api/sync/push. */
export const pushResponseSchema = Type.Object({ ...perType(() => Type.Array(itemResult)), conflicts: Type.Array(conflictSchema) });

/** `data` of GET /api/sync/changes. */
export const pullResponseSchema = Type.Object({
  cursorReset: Type.Boolean(),
  nextCursor: Type.String(),
  hasMore: Type.Boolean(),
  ...perType((type) => Type.Array(wireRecordSchema(type))),
});

/** Query of GET /api/sync/changes. */
export const pullQuerySchema = Type.Object(
  {
    cursor: Type.Optional(Type.String({ maxLength: 4096, description: 'opaque nextCursor of an earlier pull' })),
    limit: Type.Optional(Type.String({ pattern: CLAMPED_INTEGER_TEXT, description: clampedDescription(PAGE_LIMITS.pull) })),
  },
);

/** Query of GET /api/sync/conflicts. */
export const conflictListQuerySchema = Type.Object(
  {
    afterId: Type.Optional(Type.String({ pattern: CLAMPED_INTEGER_TEXT, description: 'integer; conflicts with a greater id' })),
    limit: Type.Optional(Type.String({ pattern: CLAMPED_INTEGER_TEXT, description: clampedDescription(PAGE_LIMITS.conflicts) })),
  },
);

/** `data` of GET /api/sync/conflicts. */
export const conflictPageSchema = Type.Object({
  conflicts: Type.Array(conflictSchema),
  hasMore: Type.Boolean(),
  nextAfterId: Type.Union([Type.Integer(), Type.Null()]),
});

/** Path and body of POST /api/sync/conflicts/:id/resolve. */
export const resolveParamsSchema = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,15}$', description: 'conflictId' }) });
/** Body of POST /api/sync/conflicts/:id/resolve. */
export const resolveBodySchema = Type.Object(
  { action: Type.Union([Type.Literal('restore'), Type.Literal('dismiss')]) },
  { additionalProperties: false },
);

/** `data` of POST /api/sync/conflicts/:id/resolve. */
export const resolveResponseSchema = Type.Object({
  conflict: conflictSchema,
  record: Type.Union([
    Type.Object({ entityType: Type.String(), uid: Type.String(), version: Type.String() }),
    Type.Null(),
  ]),
});
