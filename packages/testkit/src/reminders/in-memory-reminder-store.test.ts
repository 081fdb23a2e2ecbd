import { runReminderStoreContract } from '../contract/index.js';
import { InMemorySyncStore } from '../in-memory-sync-store.js';
import { InMemoryReminderStore } from './in-memory-reminder-store.js';
import { InMemorySchedulerLease } from './in-memory-scheduler-lease.js';

let users = 0;
runReminderStoreContract('InMemoryReminderStore', async () => {
  const store = new InMemorySyncStore();
  const lease = new InMemorySchedulerLease();
  return { reminders: new InMemoryReminderStore(store), lease, otherLease: lease, store, feed: store.changes, createUser: async () => ++users, close: async () => {} };
});
