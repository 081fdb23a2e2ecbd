import type { FieldKind, FieldSpec } from '@calsync/domain';

/**
 * SQL type of each field kind: the row mapper and the set-based writes cast by it, and a migration
 * test checks the columns migration 0001 writes out against it.
 */
export const SQL_TYPE_OF_KIND: Readonly<Record<FieldKind, 'text' | 'boolean' | 'integer' | 'timestamptz'>> = {
  text: 'text',
  color: 'text',
  timezone: 'text',
  rrule: 'text',
  exdate: 'text',
  ref: 'text',
  link: 'text',
  moves: 'text',
  boolean: 'boolean',
  integer: 'integer',
  datetime: 'timestamptz',
  // An instant or a date as its text (ISO forms sort as text); a date must stay a date.
  eventtime: 'text',
};

/** A field is NOT NULL when it is not nullable or must be given on create. */
export function isNotNull(field: FieldSpec): boolean {
  return !field.nullable || field.requiredOnCreate;
}

/** A quoted SQL identifier (for statement texts made once as plain text). */
export const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;
