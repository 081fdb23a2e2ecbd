import { runSyncStoreContract } from '@calsync/testkit/contracts';
import { PostgresSyncStore } from './postgres-sync-store.js';
import { announceDatabaseKinds, createTestUser, openTestDatabase } from '../test-support/index.js';

// Relative import: adapters-postgres does not depend on @calsync/testkit (package.json is fixed).
const kinds = announceDatabaseKinds('postgres-sync-store.pg.test.ts');

for (const kind of kinds) {
  runSyncStoreContract(
    `PostgresSyncStore on ${kind}`,
    async () => {
      const database = await openTestDatabase(kind);
      const feed = await database.openChangeFeed();
      return {
        store: new PostgresSyncStore(database.db),
        feed,
        createUser: () => createTestUser(database),
        close: async () => {
          await feed.close();
          await database.close();
        },
      };
    },
    { singleSession: kind === 'pglite' },
  );
}
