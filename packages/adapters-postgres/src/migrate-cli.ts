import { createDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';

// `pnpm migrate`: migrates the database named by DATABASE_URL and prints one line.
const url = process.env.DATABASE_URL ?? 'pglite://./.data/pglite';
const database = await createDatabase(url, { poolMax: 1 });
try {
  const { applied } = await migrateToLatest(database.db);
  console.log(applied.length === 0 ? 'migrate: schema already up to date' : `migrate: applied ${applied.join(', ')}`);
} catch (error) {
  console.error(`migrate: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await database.close();
}
