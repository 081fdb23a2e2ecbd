import { FIELD_TABLES, IGNORED_PUSH_KEYS, RECORD_TYPES, UID_PATTERN, VERSION_PATTERN, type FieldSpec, type RecordType } from '@calsync/domain';
import { Type, type TSchema } from '@sinclair/typebox';

/** Maximum items in one push array (spec "Limits"); more answers 413 BATCH_TOO_LARGE. */
export const MAX_PUSH_ITEMS_PER_ARRAY = 1000;

/** JSON type of a field kind; value rules (formats, ranges, lengths) are the domain's per-item checks. */
function valueSchema(field: FieldSpec): TSchema {
  switch (field.kind) {
    case 'boolean':
      return Type.Boolean();
    case 'integer':
      return Type.Integer();
    case 'datetime':
      return Type.String({ description: 'ISO 8601 instant' });
    case 'ref':
      return Type.String({ description: `uid of a live ${field.ref ?? 'record'} of the same user` });
    case 'color':
      return Type.String({ description: '#RRGGBB' });
    case 'timezone':
      return Type.String({ description: 'IANA time zone name' });
    case 'rrule':
      return Type.String({ description: 'RFC 5545 RRULE value without the RRULE: prefix' });
    case 'exdate':
      return Type.String({ description: 'comma-separated ISO 8601 start times' });
    case 'text':
      return Type.String();
  }
}

function fieldSchema(field: FieldSpec): TSchema {
  const base = valueSchema(field);
  return field.nullable ? Type.Union([base, Type.Null()]) : base;
}

function fieldProperties(type: RecordType): Record<string, TSchema> {
  const props: Record<string, TSchema> = {};
  for (const f of FIELD_TABLES[type]) props[f.name] = Type.Optional(fieldSchema(f));
  return props;
}

/** Schema of one pushed item of `type`, generated from the domain's field table. */
export function pushItemSchema(type: RecordType): TSchema {
  const ignored: Record<string, TSchema> = {};
  for (const k of IGNORED_PUSH_KEYS) ignored[k] = Type.Optional(Type.Unknown({ description: 'server-owned; ignored' }));
  return Type.Object(
    {
      // Ignored keys first: the item's own keys among them (uid, op, baseVersion) keep their schemas.
      ...ignored,
      uid: Type.String({ pattern: UID_PATTERN.source }),
      op: Type.Union([Type.Literal('upsert'), Type.Literal('delete')]),
      baseVersion: Type.Optional(Type.Union([Type.String({ pattern: VERSION_PATTERN.source }), Type.Null()])),
      ...fieldProperties(type),
    },
    { additionalProperties: false },
  );
}

/** Body of POST /api/sync/push: four optional arrays of items. */
export function pushBodySchema(): TSchema {
  const props: Record<string, TSchema> = {};
  for (const type of RECORD_TYPES) {
    props[type] = Type.Optional(Type.Array(pushItemSchema(type), { maxItems: MAX_PUSH_ITEMS_PER_ARRAY }));
  }
  return Type.Object(props, { additionalProperties: false });
}

/** A record of `type` as pull returns it: its fields plus the server stamps. */
export function wireRecordSchema(type: RecordType): TSchema {
  return Type.Object(
    {
      id: Type.Optional(Type.Integer()),
      uid: Type.String(),
      version: Type.Union([Type.String(), Type.Null()]),
      deleted: Type.Optional(Type.Union([Type.String({ description: 'ISO 8601 time of deletion' }), Type.Null()])),
      createdAt: Type.Optional(Type.String()),
      updatedAt: Type.Optional(Type.String()),
      ...fieldProperties(type),
    },
    { additionalProperties: true },
  );
}
