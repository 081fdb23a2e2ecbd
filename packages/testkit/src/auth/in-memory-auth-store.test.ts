import { InMemoryAuthStore } from './in-memory-auth-store.js';
import { InMemoryUserStore } from './in-memory-user-store.js';
import { runAuthStoreContract } from './auth-store-contract.js';

runAuthStoreContract('in memory', async () => {
  return {
    users: new InMemoryUserStore(),
    store: new InMemoryAuthStore(),
    close: async () => {},
  };
});
