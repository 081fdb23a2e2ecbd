import { Migrator, type Kysely } from 'kysely';
import { staticMigrationProvider } from './migrations/index.js';

/** Names of the migrations a run applied. */
export interface MigrationOutcome {
  readonly applied: readonly string[];
}

/** Migrates the schema to the latest migration; throws when one fails. Run at start-up and by `pnpm migrate`. */
export async function migrateToLatest<T>(db: Kysely<T>): Promise<MigrationOutcome> {
  const migrator = new Migrator({ db, provider: staticMigrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`migration ${failed ?? '(setup)'} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
