import { runReminderStoreContract } from '@calsync/testkit/contracts';
import { createDatabase } from '../database.js';
import { PostgresSyncStore } from '../postgres-sync-store.js';
import { PostgresReminderStore } from './postgres-reminder-store.js';
import { PostgresSchedulerLease } from './postgres-scheduler-lease.js';
import { announceDatabaseKinds, createTestUser, openTestDatabase, testDatabaseUrl } from '../../test-support/index.js';

for (const kind of announceDatabaseKinds('postgres-reminder-store.pg.test.ts')) {
  runReminderStoreContract(`PostgresReminderStore on ${kind}`, async () => {
    const database = await openTestDatabase(kind);
    const feed = await database.openChangeFeed();
    // Another node: its own pool on the same schema (PGlite has one process per folder: a second lease on the same engine).
    const other = database.schema === null ? null : await createDatabase(testDatabaseUrl()!, { schema: database.schema, poolMax: 4 });
    return {
      reminders: new PostgresReminderStore(database.db),
      lease: new PostgresSchedulerLease(database.db),
      otherLease: new PostgresSchedulerLease((other ?? database).db),
      store: new PostgresSyncStore(database.db),
      feed,
      createUser: () => createTestUser(database),
      close: async () => {
        await feed.close();
        await other?.close();
        await database.close();
      },
    };
  });
}
