import { runSyncStoreContract } from '@calsync/testkit';
import { PostgresSyncStore } from './postgres-sync-store.js';
import { announceDatabaseKinds, openTestDatabase } from './testing.js';

// Relative import: adapters-postgres does not depend on @calsync/testkit (package.json is fixed).
const kinds = announceDatabaseKinds('postgres-sync-store.pg.test.ts');

for (const kind of kinds) {
  runSyncStoreContract(
    `PostgresSyncStore on ${kind}`,
    async () => {
      const database = await openTestDatabase(kind);
      let phone = 0;
      return {
        store: new PostgresSyncStore(database.db, { beginInOneRoundTrip: kind === 'postgres' }),
        async createUser() {
          phone += 1;
          const row = await database.db
            .insertInto('users')
            .values({ phone: `+1555${String(phone).padStart(7, '0')}`, email: null, password_hash: null, last_sync_time: null })
            .returning('id')
            .executeTakeFirstOrThrow();
          return row.id;
        },
        close: () => database.close(),
      };
    },
    { singleSession: kind === 'pglite' },
  );
}
