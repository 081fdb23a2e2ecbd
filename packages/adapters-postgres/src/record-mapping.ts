import { sql, type RawBuilder } from 'kysely';
import {
  FIELD_TABLES,
  OCCURRENCE_SOURCE_FIELDS,
  type EventSource,
  type FieldSpec,
  type FieldValue,
  type RecordRow,
  type RecordType,
} from '@calsync/domain';
import { SQL_TYPE_OF_KIND } from './record-columns.js';

/** A record table row as the driver returns it (int8 as string, timestamptz as Date). */
export type SqlRecordRow = Readonly<Record<string, unknown>>;

const STAMP_COLUMNS = ['id', 'user_id', 'uid', 'version', 'created_at', 'updated_at', 'deleted'] as const;

/** The select list of a record table: stamps plus the field columns of its field table. */
export function recordSelectList(type: RecordType): RawBuilder<unknown> {
  const columns = [...STAMP_COLUMNS, ...FIELD_TABLES[type].map((f) => f.column)];
  return sql.join(columns.map((c) => sql.ref(c)));
}

const ISO_UTC_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** An ISO 8601 string (`Date#toISOString()` form) from a timestamptz value (a Date, or text already in that form). */
export function isoFromSql(value: unknown): string {
  if (typeof value === 'string' && ISO_UTC_MS.test(value)) return value;
  return (value instanceof Date ? value : new Date(String(value))).toISOString();
}

/** Like `isoFromSql`, keeping null. */
export function isoOrNullFromSql(value: unknown): string | null {
  return value === null || value === undefined ? null : isoFromSql(value);
}

function fieldFromSql(field: FieldSpec, value: unknown): FieldValue {
  if (value === null || value === undefined) return null;
  switch (SQL_TYPE_OF_KIND[field.kind]) {
    case 'timestamptz':
      return isoFromSql(value);
    case 'integer':
      return Number(value);
    case 'boolean':
      return Boolean(value);
    default:
      return String(value);
  }
}

/**
 * Maps a record table row (or `RECORD_JSON`'s object of one) to the domain's `RecordRow`, driven by
 * the field table of `type`; no intermediate row is built.
 */
export function recordFromSql(type: RecordType, raw: SqlRecordRow): RecordRow {
  const fields: Record<string, FieldValue> = {};
  for (const field of FIELD_TABLES[type]) fields[field.name] = fieldFromSql(field, raw[field.column]);
  return {
    type,
    id: Number(raw.id),
    userId: Number(raw.user_id),
    uid: String(raw.uid),
    version: BigInt(String(raw.version)),
    createdAt: isoFromSql(raw.created_at),
    updatedAt: isoFromSql(raw.updated_at),
    deleted: isoOrNullFromSql(raw.deleted),
    fields,
  };
}

/** An event of the occurrence read (`eventWindowQuery`): its uid and the expander's fields. */
export function occurrenceSourceFromSql(raw: SqlRecordRow): EventSource {
  const fields: Record<string, FieldValue> = {};
  for (const field of OCCURRENCE_FIELD_SPECS) fields[field.name] = fieldFromSql(field, raw[field.column]);
  return { uid: String(raw.uid), fields };
}

/** The event fields the expander reads (`OCCURRENCE_SOURCE_FIELDS`), with their specs (column, kind). */
export const OCCURRENCE_FIELD_SPECS = OCCURRENCE_SOURCE_FIELDS.map((name) => FIELD_TABLES.events.find((f) => f.name === name)!);

/** The column of the reference field `field` (wire name) of `type`; throws for a non-reference. */
export function referenceColumn(type: RecordType, field: string): string {
  const spec = FIELD_TABLES[type].find((f) => f.name === field && (f.kind === 'ref' || f.kind === 'link'));
  if (spec === undefined) throw new Error(`${field} is not a reference or link field of ${type}`);
  return spec.column;
}
