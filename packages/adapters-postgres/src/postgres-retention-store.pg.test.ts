import { runRetentionStoreContract } from '@calsync/testkit/contracts';
import { createDatabase } from './database.js';
import { postgresAuthStores } from './auth/postgres-auth-stores.js';
import { PostgresRetentionStore } from './postgres-retention-store.js';
import { PostgresSyncStore } from './postgres-sync-store.js';
import { PostgresRenderStore } from './dav/postgres-render-store.js';
import { announceDatabaseKinds, openTestDatabase, testDatabaseUrl } from '../test-support/index.js';

for (const kind of announceDatabaseKinds('postgres-retention-store.pg.test.ts')) {
  runRetentionStoreContract(`PostgresRetentionStore on ${kind}`, async () => {
    const database = await openTestDatabase(kind);
    // Another node: its own pool on the same schema (PGlite has one process per folder: a second store on the same engine).
    const other = database.schema === null ? null : await createDatabase(testDatabaseUrl()!, { schema: database.schema, poolMax: 2 });
    const { users, sessions, otps } = postgresAuthStores(database.db);
    return {
      retention: new PostgresRetentionStore(database.db, kind),
      otherNode: new PostgresRetentionStore((other ?? database).db, kind),
      store: new PostgresSyncStore(database.db),
      users,
      sessions,
      otps,
      renders: new PostgresRenderStore(database.db),
      close: async () => {
        await other?.close();
        await database.close();
      },
    };
  });
}
