import type { Migration, MigrationProvider } from 'kysely';
import * as modules from './list.js';

/**
 * All migrations by name, from static imports (works compiled and under vitest, unlike a folder
 * scan). Add a migration with one `export * as m<name> from './<name>.js'` line in list.ts.
 */
export const MIGRATIONS: Readonly<Record<string, Migration>> = Object.fromEntries(
  Object.entries(modules as Record<string, Migration>).map(([key, module]) => [key.slice(1), module]),
);

/** Kysely migration provider over `MIGRATIONS`. */
export const staticMigrationProvider: MigrationProvider = {
  getMigrations: async () => ({ ...MIGRATIONS }),
};
