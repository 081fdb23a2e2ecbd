import { runFeedStoreContract } from '@calsync/testkit/contracts';
import { PostgresFeedStore } from './postgres-feed-store.js';
import { announceDatabaseKinds, createTestUser, openTestDatabase } from '../../test-support/index.js';

const kinds = announceDatabaseKinds('postgres-feed-store.pg.test.ts');

for (const kind of kinds) {
  runFeedStoreContract(`PostgresFeedStore on ${kind}`, async () => {
    const database = await openTestDatabase(kind);
    return { feeds: new PostgresFeedStore(database.db), createUser: () => createTestUser(database), close: () => database.close() };
  });
}
