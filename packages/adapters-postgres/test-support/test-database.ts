import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { inject } from 'vitest';
import { createDatabase, type Database, type DatabaseKind } from '../src/database.js';
import { migrateToLatest, migrateUpTo } from '../src/migrate.js';

declare module 'vitest' {
  /** What vitest.config.ts provides to the database tests. */
  export interface ProvidedContext {
    /** The PostgreSQL server the database tests may use (null: PGlite only). */
    testDatabaseUrl: string | null;
  }
}

/** The PostgreSQL URL the vitest project configuration chose for database tests, or null. */
export function testDatabaseUrl(): string | null {
  return inject('testDatabaseUrl') ?? null;
}

/** The database kinds the database tests run against: PGlite always, PostgreSQL when the configuration gives a server. */
export function databaseKindsUnderTest(): DatabaseKind[] {
  return testDatabaseUrl() ? ['pglite', 'postgres'] : ['pglite'];
}

let announced = false;

/** Logs once per test file which kinds run, so the CI log shows whether PostgreSQL ran. */
export function announceDatabaseKinds(file: string): DatabaseKind[] {
  const kinds = databaseKindsUnderTest();
  if (!announced) {
    announced = true;
    console.info(`[db tests] ${file}: running against ${kinds.join(' and ')}`);
  }
  return kinds;
}

/** A migrated, isolated database for one test file; `close` throws it away. */
export interface TestDatabase extends Database {
  /** The PostgreSQL schema holding the tables (null for PGlite, which is private anyway). */
  readonly schema: string | null;
}

/**
 * Opens a fresh migrated database for tests (up to `opts.upTo` when given, else to the latest). PGlite: in memory. PostgreSQL: a uniquely named
 * schema in `opts.url` or the configured test server, first on every pool connection's search_path, dropped on close, so
 * test files running at the same time never see each other's rows.
 */
export async function openTestDatabase(kind: DatabaseKind, opts: { poolMax?: number; url?: string; upTo?: string } = {}): Promise<TestDatabase> {
  const migrateIt = <T>(db: Kysely<T>) => (opts.upTo === undefined ? migrateToLatest(db) : migrateUpTo(db, opts.upTo));
  if (kind === 'pglite') {
    const database = await createDatabase('pglite://memory');
    await migrateIt(database.db);
    return { ...database, schema: null };
  }
  const url = opts.url ?? testDatabaseUrl();
  if (!url) throw new Error('no PostgreSQL server for tests (set TEST_DATABASE_URL)');
  const schema = `test_${randomBytes(6).toString('hex')}`;
  await withClient(url, (client) => client.query(`create schema ${schema}`));
  const database = await createDatabase(url, { schema, poolMax: opts.poolMax ?? 10 });
  try {
    await migrateIt(database.db);
  } catch (error) {
    await database.close();
    await withClient(url, (client) => client.query(`drop schema ${schema} cascade`));
    throw error;
  }
  return {
    ...database,
    schema,
    async close() {
      await database.close();
      await withClient(url, (client) => client.query(`drop schema if exists ${schema} cascade`));
    },
  };
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

let testPhones = 0;

/** Inserts a user with a phone no other test user in this process has, and returns its id. */
export async function createTestUser(database: Database, lastSyncTime: string | null = null): Promise<number> {
  testPhones += 1;
  const row = await database.db
    .insertInto('users')
    .values({ phone: `+1555${String(testPhones).padStart(7, '0')}`, email: null, password_hash: null, last_sync_time: lastSyncTime })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
