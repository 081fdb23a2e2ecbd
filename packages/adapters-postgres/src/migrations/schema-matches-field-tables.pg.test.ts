import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELD_TABLES, RECORD_TYPES } from '@calsync/domain';
import { SQL_TYPE_OF_KIND, isNotNull } from '../record-columns.js';
import { ID_TABLES, RESERVE_SEQUENCES } from '../record-queries.js';
import { announceDatabaseKinds, openTestDatabase, type TestDatabase } from '../../test-support/index.js';

const kinds = announceDatabaseKinds('schema-matches-field-tables.pg.test.ts');

/** information_schema's name of each SQL type the field kinds map to. */
const INFO_SCHEMA_TYPE = { text: 'text', boolean: 'boolean', integer: 'integer', timestamptz: 'timestamp with time zone' } as const;
/** Columns every record table has besides its fields (and the legacy events.sync_status). */
const STAMPS = new Set(['id', 'user_id', 'uid', 'version', 'created_at', 'updated_at', 'deleted', 'sync_status']);

// Migrations are frozen once shipped, while the field tables drive validation and the row mapping.
// This catches a field added to (or changed in) FIELD_TABLES without a migration that makes it real.
describe.each(kinds)('the migrated schema matches FIELD_TABLES (%s)', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase(kind);
  });
  afterAll(async () => {
    await database?.close();
  });

  /** The definitions of a table's foreign keys, as `pg_get_constraintdef` writes them. */
  const foreignKeys = async (table: string) =>
    (await sql<{ def: string }>`
      select pg_get_constraintdef(c.oid) as def from pg_constraint c
      where c.contype = 'f' and c.conrelid = (quote_ident(current_schema()) || '.' || ${table})::regclass`.execute(database.db)).rows;

  it.each(RECORD_TYPES)('%s: every reference field has an index on (user_id, column) over live rows, without the rows it leaves null (deletes look dependents up by it)', async (type) => {
    const { rows } = await sql<{ indexdef: string }>`
      select indexdef from pg_indexes where schemaname = current_schema() and tablename = ${type}`.execute(database.db);
    for (const field of FIELD_TABLES[type].filter((f) => f.kind === 'ref')) {
      const live = isNotNull(field) ? 'WHERE (deleted IS NULL)' : `WHERE ((deleted IS NULL) AND (${field.column} IS NOT NULL))`;
      const indexed = rows.some((r) => r.indexdef.includes(`(user_id, ${field.column})`) && r.indexdef.endsWith(live));
      expect([field.name, indexed]).toEqual([field.name, true]);
    }
  });

  it.each(RECORD_TYPES)('%s: one column per field, with its type and nullability, and no column without a field', async (type) => {
    const { rows } = await sql<{ column_name: string; data_type: string; is_nullable: string }>`
      select column_name, data_type, is_nullable from information_schema.columns
      where table_schema = current_schema() and table_name = ${type}`.execute(database.db);
    const columns = new Map(rows.map((r) => [r.column_name, r]));
    for (const field of FIELD_TABLES[type]) {
      const column = columns.get(field.column);
      expect(column, `${type}.${field.column}`).toBeDefined();
      expect([field.name, column?.data_type]).toEqual([field.name, INFO_SCHEMA_TYPE[SQL_TYPE_OF_KIND[field.kind]]]);
      expect([field.name, column?.is_nullable]).toEqual([field.name, isNotNull(field) ? 'NO' : 'YES']);
    }
    const fieldColumns = new Set(FIELD_TABLES[type].map((f) => f.column));
    const orphans = [...columns.keys()].filter((c) => !STAMPS.has(c) && !fieldColumns.has(c));
    expect(orphans).toEqual([]);
  });

  it('the reservation draws ids from each table\'s own identity sequence', async () => {
    for (const [key, table] of Object.entries(ID_TABLES)) {
      const { rows } = await sql<{ named: string | null; own: string | null }>`
        select cast(cast(${RESERVE_SEQUENCES[key as keyof typeof RESERVE_SEQUENCES]} as regclass) as text) as named,
               cast(cast(pg_get_serial_sequence(${table}, 'id') as regclass) as text) as own`.execute(database.db);
      expect([key, rows[0]!.named]).toEqual([key, rows[0]!.own]);
      expect(rows[0]!.own).not.toBeNull();
    }
  });

  it.each(RECORD_TYPES)('%s: user_id references users with a cascade, unless a required reference to another table reaches the user through its parent (migration 0014)', async (type) => {
    const rows = await foreignKeys(type);
    const throughParent = FIELD_TABLES[type].some((f) => f.kind === 'ref' && f.ref !== type && isNotNull(f));
    const ownKey = rows.some((r) => /^FOREIGN KEY \(user_id\) REFERENCES (\w+\.)?users\(id\) ON DELETE CASCADE$/.test(r.def));
    expect([type, ownKey]).toEqual([type, !throughParent]);
  });

  it.each(RECORD_TYPES)('%s: every reference field has a (user_id, column) foreign key to its parent', async (type) => {
    const defs = (await foreignKeys(type)).map((r) => r.def);
    for (const field of FIELD_TABLES[type].filter((f) => f.kind === 'ref')) {
      expect(defs, `${type}.${field.column}`).toContainEqual(expect.stringMatching(new RegExp(`FOREIGN KEY \\(user_id, ${field.column}\\) REFERENCES (\\w+\\.)?${field.ref}\\(user_id, uid\\)`)));
    }
  });
});
