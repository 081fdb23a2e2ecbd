import { runDeviceStoreContract, runOtpStoreContract, runSessionStoreContract, runUserStoreContract, type OpenAuthStores } from '@calsync/testkit/contracts';
import { announceDatabaseKinds, openTestDatabase } from '../../test-support/index.js';
import { postgresAuthStores } from './postgres-auth-stores.js';

for (const kind of announceDatabaseKinds('auth stores')) {
  const open: OpenAuthStores = async () => {
    const database = await openTestDatabase(kind);
    return { ...postgresAuthStores(database.db), close: () => database.close() };
  };
  runUserStoreContract(kind, open);
  runDeviceStoreContract(kind, open);
  runSessionStoreContract(kind, open);
  runOtpStoreContract(kind, open);
}
