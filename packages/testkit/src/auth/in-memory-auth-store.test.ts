import { InMemoryAuthStore } from './in-memory-auth-store.js';
import { InMemoryUserStore } from './in-memory-user-store.js';
import { runAuthStoreContract } from './auth-store-contract.js';

runAuthStoreContract('in memory', async () => {
  const users = new InMemoryUserStore();
  return {
    users,
    store: new InMemoryAuthStore(),
    defaultCalendars: async (userId) => users.calendars.filter((c) => c.userId === userId),
    close: async () => {},
  };
});
