import { runSyncStoreContract } from './contract/index.js';
import { InMemorySyncStore } from './in-memory-sync-store.js';

let users = 0;
runSyncStoreContract('InMemorySyncStore', async () => ({
  store: new InMemorySyncStore(),
  createUser: async () => ++users,
  close: async () => {},
}));
