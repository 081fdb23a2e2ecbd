import { runRenderStoreContract } from '@calsync/testkit/contracts';
import { PostgresRenderStore } from './postgres-render-store.js';
import { announceDatabaseKinds, createTestUser, openTestDatabase } from '../../test-support/index.js';

const kinds = announceDatabaseKinds('postgres-render-store.pg.test.ts');

for (const kind of kinds) {
  runRenderStoreContract(`PostgresRenderStore on ${kind}`, async () => {
    const database = await openTestDatabase(kind);
    return { renders: new PostgresRenderStore(database.db), createUser: () => createTestUser(database), close: () => database.close() };
  });
}
