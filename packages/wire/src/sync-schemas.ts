import { ENTITY_TYPE, ITEM_ERROR_CODES, PAGE_LIMITS, type QueryBounds, type RecordType } from '@calsync/domain/rules';
import { Type, type TSchema } from '@sinclair/typebox';
import { stringEnum } from './envelope-schemas.js';
import { instantSchema, LOSER_SNAPSHOT_SCHEMAS, PULLED_RECORD_SCHEMAS, RECORD_NAMES, uidSchema, versionSchema } from './record-schemas.js';

/** OpenAPI description of a clamped integer query value, read from the domain's limits table. */
const clampedDescription = (b: QueryBounds): string => `clamped to ${b.min}..${b.max}; default ${b.default}`;

/** A conflict id (the server's integer id of a conflict record). */
export const conflictIdSchema = Type.Integer({ minimum: 1, description: 'conflict id' });

/** The result of an applied (or conflicting) pushed item. */
export const itemAppliedSchema = Type.Object(
  {
    uid: uidSchema,
    status: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('deleted'), Type.Literal('conflict')]),
    id: Type.Optional(Type.Integer({ description: 'server row id; absent when no row exists (delete of an unknown uid)' })),
    version: Type.Union([versionSchema, Type.Null()], { description: "the row's version now; the next baseVersion for this uid (null: no row)" }),
    conflictId: Type.Optional(Type.Integer({ description: 'set when status is conflict' })),
  },
  { title: 'ItemApplied' },
);

/** A per-item error code. */
export const itemErrorCodeSchema = stringEnum(ITEM_ERROR_CODES, {
  title: 'ItemErrorCode',
  description: 'UNKNOWN_REFERENCE is retryable (after the next pull); the others are not',
});

/** The result of a pushed item that was refused on its own (the rest of the batch still applies). */
export const itemErrorSchema = Type.Object(
  {
    uid: Type.String({ description: 'the uid as sent' }),
    status: Type.Literal('error'),
    error: Type.Object({ code: itemErrorCodeSchema, message: Type.String(), retryable: Type.Boolean() }),
  },
  { title: 'ItemError' },
);

/** One entry of a push result array. */
export const itemResultSchema = Type.Union([itemAppliedSchema, itemErrorSchema], { title: 'ItemResult' });

const conflictBase = {
  conflictId: conflictIdSchema,
  entityUid: uidSchema,
  winnerVersion: versionSchema,
  createdAt: instantSchema(),
  resolvedAt: Type.Union([instantSchema(), Type.Null()]),
};

/** A conflict of one record type: `loserSnapshot` is the losing side in that type's shape. */
export function typedConflictSchema<T extends RecordType>(type: T) {
  return Type.Object(
    { ...conflictBase, entityType: Type.Literal(ENTITY_TYPE[type]), loserSnapshot: LOSER_SNAPSHOT_SCHEMAS[type] },
    { title: `${RECORD_NAMES[type]}Conflict` },
  );
}

/** A conflict record on the wire, discriminated by `entityType`. */
export const conflictSchema = Type.Union(
  [typedConflictSchema('calendars'), typedConflictSchema('events'), typedConflictSchema('tasks'), typedConflictSchema('reminders')],
  { title: 'Conflict' },
);

/** `data` of POST /api/sync/push: one result per pushed item, in the order sent, and the conflicts it made. */
export const pushResponseSchema = Type.Object(
  {
    calendars: Type.Array(itemResultSchema),
    events: Type.Array(itemResultSchema),
    tasks: Type.Array(itemResultSchema),
    reminders: Type.Array(itemResultSchema),
    conflicts: Type.Array(conflictSchema),
  } satisfies Record<RecordType | 'conflicts', TSchema>,
  { title: 'PushResult' },
);

/** `data` of GET /api/sync/changes: one page of changes after the cursor. */
export const pullResponseSchema = Type.Object(
  {
    cursorReset: Type.Boolean({ description: 'true when the cursor was missing or invalid and this is a full snapshot from the start' }),
    nextCursor: Type.String({ description: 'opaque; send it as cursor on the next pull' }),
    hasMore: Type.Boolean({ description: 'pull again with nextCursor to get the rest' }),
    newestConflictId: Type.Union([Type.Integer(), Type.Null()], {
      description:
        "the greatest conflictId among the user's unresolved conflicts at the pull's bound, null when none: list conflicts (GET /api/sync/conflicts with afterId) only when it is above the last conflictId this device listed",
    }),
    calendars: Type.Array(PULLED_RECORD_SCHEMAS.calendars),
    events: Type.Array(PULLED_RECORD_SCHEMAS.events),
    tasks: Type.Array(PULLED_RECORD_SCHEMAS.tasks),
    reminders: Type.Array(PULLED_RECORD_SCHEMAS.reminders),
  } satisfies Record<RecordType | 'cursorReset' | 'nextCursor' | 'hasMore' | 'newestConflictId', TSchema>,
  { title: 'PullPage' },
);

/** Query of GET /api/sync/changes. */
export const pullQuerySchema = Type.Object(
  {
    cursor: Type.Optional(Type.String({ maxLength: 4096, description: 'nextCursor of an earlier pull; absent or invalid: full snapshot' })),
    limit: Type.Optional(Type.Integer({ description: `records per page; ${clampedDescription(PAGE_LIMITS.pull)}` })),
  },
);

/** Query of GET /api/sync/conflicts. */
export const conflictListQuerySchema = Type.Object(
  {
    afterId: Type.Optional(Type.Integer({ description: `only conflicts with a greater conflictId (pass nextAfterId); ${clampedDescription(PAGE_LIMITS.conflictAfterId)}` })),
    limit: Type.Optional(Type.Integer({ description: `conflicts per page; ${clampedDescription(PAGE_LIMITS.conflicts)}` })),
  },
);

/** `data` of GET /api/sync/conflicts. */
export const conflictPageSchema = Type.Object(
  {
    conflicts: Type.Array(conflictSchema),
    hasMore: Type.Boolean(),
    nextAfterId: Type.Union([Type.Integer(), Type.Null()], { description: 'pass as afterId for the next page; null when hasMore is false' }),
  },
  { title: 'ConflictPage' },
);

/** Path of POST /api/sync/conflicts/{id}/resolve. */
export const resolveParamsSchema = Type.Object({ id: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'conflictId' }) });

/** Body of POST /api/sync/conflicts/{id}/resolve. */
export const resolveBodySchema = Type.Object(
  { action: Type.Union([Type.Literal('restore'), Type.Literal('dismiss')], { description: 'restore: the loser becomes a new version; dismiss: the winner stays' }) },
  { additionalProperties: false, title: 'ResolveRequest' },
);

/** The record a restore wrote (null after dismiss). */
export const restoredRecordSchema = Type.Object({
  entityType: stringEnum(Object.values(ENTITY_TYPE)),
  uid: uidSchema,
  version: versionSchema,
});

/** `data` of POST /api/sync/conflicts/{id}/resolve. */
export const resolveResponseSchema = Type.Object(
  { conflict: conflictSchema, record: Type.Union([restoredRecordSchema, Type.Null()]) },
  { title: 'ResolveResult' },
);
