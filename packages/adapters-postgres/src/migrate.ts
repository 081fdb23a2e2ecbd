import { Migrator, sql, type Kysely } from 'kysely';
import { staticMigrationProvider } from './migrations/index.js';

/** Names of the migrations a run applied. */
export interface MigrationOutcome {
  readonly applied: readonly string[];
}

/** Migrates the schema to the latest migration; throws when one fails. Run at start-up and by `pnpm migrate`. */
export async function migrateToLatest<T>(db: Kysely<T>): Promise<MigrationOutcome> {
  return migrate(db, null);
}

/** Migrates the schema up to and including the migration `name` (a migration's test starts from the schema before it). */
export async function migrateUpTo<T>(db: Kysely<T>, name: string): Promise<MigrationOutcome> {
  return migrate(db, name);
}

async function migrate<T>(db: Kysely<T>, upTo: string | null): Promise<MigrationOutcome> {
  // Kysely looks for its bookkeeping tables in every schema unless told which one: name the current
  // schema, so databases that share a server in different schemas (tests) do not see each other's.
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const migrationTableSchema = rows[0]?.schema ?? 'public';
  const migrator = new Migrator({ db, provider: staticMigrationProvider, migrationTableSchema });
  const { error, results } = upTo === null ? await migrator.migrateToLatest() : await migrator.migrateTo(upTo);
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`migration ${failed ?? '(setup)'} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
