import {
  FIELD_TABLES,
  IGNORED_PUSH_KEYS,
  UID_PATTERN,
  VERSION_PATTERN,
  type FieldKind,
  type FieldSpec,
  type FieldTables,
  type RecordType,
} from '@calsync/domain/rules';
import { Type, type TBoolean, type TInteger, type TNull, type TObject, type TOptional, type TSchema, type TString, type TUnion } from '@sinclair/typebox';

/** Maximum items in one push array (docs/protocol.md); more answers 413 BATCH_TOO_LARGE. */
export const MAX_PUSH_ITEMS_PER_ARRAY = 1000;

/** The schema type of a field kind (booleans and integers; every other kind travels as a string). */
type KindSchema<K extends FieldKind> = K extends 'boolean' ? TBoolean : K extends 'integer' ? TInteger : TString;
/** The schema type of one field-table row: its kind, or null too when the field is nullable. */
type FieldSchema<F extends FieldSpec> = F['nullable'] extends true ? TUnion<[KindSchema<F['kind']>, TNull]> : KindSchema<F['kind']>;
/** The record fields of `T` as schema properties, read from the domain's field table at the type level. */
export type FieldProperties<T extends RecordType> = { [F in FieldTables[T][number] as F['name']]: FieldSchema<F> };
/** The same properties, each optional (a push item is a patch). */
type OptionalFieldProperties<T extends RecordType> = { [F in FieldTables[T][number] as F['name']]: TOptional<FieldSchema<F>> };

/** An event time as the server writes it: `YYYY-MM-DD` (all-day) or an instant in `toISOString` form. */
const EVENT_TIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z)?$';

/** An instant as the server writes it (`Date#toISOString()` form). */
export const instantSchema = (description = 'ISO 8601 instant (UTC)') => Type.String({ format: 'date-time', description });

/**
 * The JSON schema of a field kind. `pulled` adds what the server guarantees about its own output
 * (instants are `date-time`); on push, value rules are the domain's per-item checks (a bad value
 * is a per-item INVALID_FIELD error, not a refused request), so the push schema only types them.
 */
function valueSchema(field: FieldSpec, pulled: boolean): TSchema {
  switch (field.kind) {
    case 'boolean':
      return Type.Boolean();
    case 'integer':
      return Type.Integer(pulled ? { minimum: field.min, maximum: field.max } : {});
    case 'datetime':
      return pulled ? instantSchema() : Type.String({ description: 'ISO 8601 instant (a per-item INVALID_FIELD error otherwise)' });
    case 'eventtime':
      return pulled
        ? Type.String({ pattern: EVENT_TIME_PATTERN, description: 'an instant (UTC, toISOString form), or for an all-day event a date YYYY-MM-DD' })
        : Type.String({ description: 'ISO 8601 instant, or for an all-day event a date YYYY-MM-DD (a per-item INVALID_FIELD error otherwise)' });
    case 'ref':
      return Type.String({ description: `uid of a live ${field.ref ?? 'record'} of the same user` });
    case 'link':
      return Type.String({ description: `uid of a ${field.ref ?? 'record'} of the same user, which may be gone (not a reference)` });
    case 'color':
      return Type.String({ description: '#RRGGBB' });
    case 'timezone':
      return Type.String({ description: 'IANA time zone name' });
    case 'rrule':
      return Type.String({ description: 'RFC 5545 RRULE value without the RRULE: prefix' });
    case 'exdate':
      return Type.String({ description: 'comma-separated ISO 8601 start times' });
    case 'moves':
      return Type.String({ description: 'comma-separated from/to pairs of a series\' start, oldest first, one per "all events" move (an instant, or a date for an all-day series)' });
    case 'text':
      return Type.String(pulled && field.maxLength !== undefined ? { maxLength: field.maxLength } : {});
  }
}

function fieldSchema(field: FieldSpec, pulled: boolean): TSchema {
  const base = valueSchema(field, pulled);
  return field.nullable ? Type.Union([base, Type.Null()]) : base;
}

/** Every field of `type` as a required property (a pulled record carries all of them, null when unset). */
export function fieldProperties<T extends RecordType>(type: T): FieldProperties<T> {
  const props: Record<string, TSchema> = {};
  for (const f of FIELD_TABLES[type]) props[f.name] = fieldSchema(f, true);
  // The table drives both the value and (through FieldTables) the type; they are the same rows.
  return props as FieldProperties<T>;
}

function optionalFieldProperties<T extends RecordType>(type: T): OptionalFieldProperties<T> {
  const props: Record<string, TSchema> = {};
  for (const f of FIELD_TABLES[type]) props[f.name] = Type.Optional(fieldSchema(f, false));
  return props as OptionalFieldProperties<T>;
}

/** Component names per record type (singular, capitalised). */
export const RECORD_NAMES = { calendars: 'Calendar', events: 'Event', tasks: 'Task', reminders: 'Reminder' } as const satisfies Record<RecordType, string>;

/** A record uid: 1..128 characters of [A-Za-z0-9_-], chosen by the client, unique per user and type. */
export const uidSchema = Type.String({ pattern: UID_PATTERN.source, description: 'client-chosen id: 1..128 characters of A-Z a-z 0-9 _ -' });
/** A version: a decimal string of a 64-bit integer (versions are strings on the wire, never numbers). */
export const versionSchema = Type.String({ pattern: VERSION_PATTERN.source, description: 'decimal string of a 64-bit version' });

const ignoredKeys = (): Record<string, TOptional<TSchema>> => {
  const ignored: Record<string, TOptional<TSchema>> = {};
  for (const k of IGNORED_PUSH_KEYS) ignored[k] = Type.Optional(Type.Unknown({ description: 'server-owned or legacy; ignored' }));
  return ignored;
};

/** Schema of one pushed item of `type`, generated from the domain's field table. */
export function pushItemSchema<T extends RecordType>(type: T) {
  const fields = optionalFieldProperties(type);
  return Type.Object(
    {
      // Ignored keys first: the item's own keys among them (uid, op, baseVersion) keep their schemas.
      ...ignoredKeys(),
      uid: uidSchema,
      op: Type.Union([Type.Literal('upsert'), Type.Literal('delete')]),
      baseVersion: Type.Optional(Type.Union([versionSchema, Type.Null()], { description: 'version the client last saw; null or absent for a new record' })),
      ...fields,
    },
    { additionalProperties: false, title: `${RECORD_NAMES[type]}PushItem` },
  );
}

const stamps = {
  id: Type.Integer({ description: 'server row id' }),
  uid: uidSchema,
  version: versionSchema,
  createdAt: instantSchema(),
  updatedAt: instantSchema(),
};

/** A live record of `type` as pull returns it: every field (null when unset) plus the server stamps. */
export function liveRecordSchema<T extends RecordType>(type: T) {
  return Type.Object({ ...stamps, deleted: Type.Null({ description: 'null: the record is live' }), ...fieldProperties(type) }, { title: RECORD_NAMES[type] });
}

/** A tombstone of `type`: the last fields it had, with `deleted` set to the time of deletion. */
export function tombstoneSchema<T extends RecordType>(type: T) {
  return Type.Object({ ...stamps, deleted: instantSchema('time of deletion'), ...fieldProperties(type) }, { title: `${RECORD_NAMES[type]}Tombstone` });
}

/** What a pull can return for `type`: a live record or a tombstone. */
export function pulledRecordSchema<T extends RecordType>(type: T) {
  return Type.Union([liveRecordSchema(type), tombstoneSchema(type)]);
}

/**
 * The loser of a conflict as the client sent it (fields over the row it replaced): `version` is the
 * item's baseVersion, null when it had none; `deleted` is always null.
 */
export function loserSnapshotSchema<T extends RecordType>(type: T) {
  return Type.Object(
    { ...stamps, version: Type.Union([versionSchema, Type.Null()]), deleted: Type.Null(), ...fieldProperties(type) },
    { title: `${RECORD_NAMES[type]}Snapshot` },
  );
}

/** Builds one schema per record type; `satisfies` makes a new record type a compile error here. */
export const PUSH_ITEM_SCHEMAS = {
  calendars: pushItemSchema('calendars'),
  events: pushItemSchema('events'),
  tasks: pushItemSchema('tasks'),
  reminders: pushItemSchema('reminders'),
} satisfies Record<RecordType, TObject>;

/** Pulled records (live or tombstone) per record type. */
export const PULLED_RECORD_SCHEMAS = {
  calendars: pulledRecordSchema('calendars'),
  events: pulledRecordSchema('events'),
  tasks: pulledRecordSchema('tasks'),
  reminders: pulledRecordSchema('reminders'),
} satisfies Record<RecordType, TSchema>;

/** Loser snapshots per record type. */
export const LOSER_SNAPSHOT_SCHEMAS = {
  calendars: loserSnapshotSchema('calendars'),
  events: loserSnapshotSchema('events'),
  tasks: loserSnapshotSchema('tasks'),
  reminders: loserSnapshotSchema('reminders'),
} satisfies Record<RecordType, TObject>;

/** Body of POST /api/sync/push: four optional arrays of items, applied in this order. */
export const pushBodySchema = Type.Object(
  {
    calendars: Type.Optional(Type.Array(PUSH_ITEM_SCHEMAS.calendars, { maxItems: MAX_PUSH_ITEMS_PER_ARRAY })),
    events: Type.Optional(Type.Array(PUSH_ITEM_SCHEMAS.events, { maxItems: MAX_PUSH_ITEMS_PER_ARRAY })),
    tasks: Type.Optional(Type.Array(PUSH_ITEM_SCHEMAS.tasks, { maxItems: MAX_PUSH_ITEMS_PER_ARRAY })),
    reminders: Type.Optional(Type.Array(PUSH_ITEM_SCHEMAS.reminders, { maxItems: MAX_PUSH_ITEMS_PER_ARRAY })),
  } satisfies Record<RecordType, TSchema>,
  { additionalProperties: false, title: 'PushRequest' },
);
