import { CREATE_DEFAULTS, FIELD_TABLES, type FieldKind, type FieldSpec, type RecordType } from '@calsync/domain';

/** SQL type of each field kind; the migration and the row mapper both read it. */
export const SQL_TYPE_OF_KIND: Readonly<Record<FieldKind, 'text' | 'boolean' | 'integer' | 'timestamptz'>> = {
  text: 'text',
  color: 'text',
  timezone: 'text',
  rrule: 'text',
  exdate: 'text',
  ref: 'text',
  boolean: 'boolean',
  integer: 'integer',
  datetime: 'timestamptz',
};

/** A field is NOT NULL when it is not nullable or must be given on create. */
export function isNotNull(field: FieldSpec): boolean {
  return !field.nullable || field.requiredOnCreate;
}

/** The DDL column definitions of a record type's fields, generated from its field table. */
export function fieldColumnDefinitions(type: RecordType): string[] {
  return FIELD_TABLES[type].map((field) => {
    const fallback = CREATE_DEFAULTS[type][field.name];
    const defaultClause = fallback === undefined ? '' : ` default ${String(fallback)}`;
    return `${field.column} ${SQL_TYPE_OF_KIND[field.kind]}${isNotNull(field) ? ' not null' : ''}${defaultClause}`;
  });
}
