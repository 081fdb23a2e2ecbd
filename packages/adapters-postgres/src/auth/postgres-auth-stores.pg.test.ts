import { runAuthStoreContract } from '@calsync/testkit';
import { announceDatabaseKinds, openTestDatabase } from '../../test-support/index.js';
import { PostgresAuthStore } from './postgres-auth-store.js';
import { PostgresUserStore } from './postgres-user-store.js';

for (const kind of announceDatabaseKinds('auth stores')) {
  runAuthStoreContract(kind, async () => {
    const database = await openTestDatabase(kind);
    return {
      users: new PostgresUserStore(database.db),
      store: new PostgresAuthStore(database.db),
      close: () => database.close(),
    };
  });
}
