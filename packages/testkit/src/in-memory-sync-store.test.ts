import { runSyncStoreContract } from './contract/index.js';
import { InMemorySyncStore } from './in-memory-sync-store.js';

let users = 0;
runSyncStoreContract('InMemorySyncStore', async () => {
  const store = new InMemorySyncStore();
  return { store, feed: store.changes, createUser: async () => ++users, close: async () => {} };
});
