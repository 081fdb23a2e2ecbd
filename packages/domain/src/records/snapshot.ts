import { FIELD_TABLES } from './field-tables.js';
import type { FieldValue, FieldValues, RecordRow, RecordType, WireRecord } from './types.js';

/** Every field of the type's table, missing ones as null: the shape of a record on the wire. */
export function completeFields(type: RecordType, fields: FieldValues): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  for (const spec of FIELD_TABLES[type]) out[spec.name] = fields[spec.name] ?? null;
  return out;
}

/** A stored row as pull and loser snapshots send it: fields plus stamps, version as a decimal string. */
export function toWireRecord(row: RecordRow): WireRecord {
  // Built in place (no spread of an intermediate object): a pull maps every row of a page here.
  const out: Record<string, FieldValue | number> = {};
  for (const spec of FIELD_TABLES[row.type]) out[spec.name] = row.fields[spec.name] ?? null;
  out.id = row.id;
  out.uid = row.uid;
  out.version = row.version.toString();
  out.deleted = row.deleted;
  out.createdAt = row.createdAt;
  out.updatedAt = row.updatedAt;
  return out as unknown as WireRecord;
}

/**
 * A stored row as its JSON text on the wire: `JSON.stringify(toWireRecord(row))`. A SQL store may
 * build the same text in its query instead (the store contract suite checks that both agree).
 */
export function encodeWireRecord(row: RecordRow): string {
  return JSON.stringify(toWireRecord(row));
}

/** The field values a wire record holds for `type` (stamps left out), e.g. to restore a loser snapshot. */
export function fieldsOfWireRecord(type: RecordType, record: WireRecord): FieldValues {
  const out: Record<string, FieldValue> = {};
  for (const spec of FIELD_TABLES[type]) out[spec.name] = record[spec.name] ?? null;
  return out;
}
