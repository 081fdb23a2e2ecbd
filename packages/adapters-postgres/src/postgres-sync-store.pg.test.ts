import { DEFAULT_NOTIFICATION_SETTINGS } from '@calsync/domain';
import { runSyncStoreContract } from '@calsync/testkit/contracts';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { PostgresSyncStore } from './postgres-sync-store.js';
import { announceDatabaseKinds, createTestUser, openTestDatabase } from '../test-support/index.js';

// Relative import: adapters-postgres does not depend on @calsync/testkit (package.json is fixed).
const kinds = announceDatabaseKinds('postgres-sync-store.pg.test.ts');

for (const kind of kinds) {
  runSyncStoreContract(
    `PostgresSyncStore on ${kind}`,
    async () => {
      const database = await openTestDatabase(kind);
      const feed = await database.openChangeFeed();
      return {
        store: new PostgresSyncStore(database.db),
        feed,
        createUser: () => createTestUser(database),
        close: async () => {
          await feed.close();
          await database.close();
        },
      };
    },
    { singleSession: kind === 'pglite' },
  );
}

describe.each(kinds)('PostgresSyncStore on %s: the notification settings a unit reads', (kind) => {
  it('are the user row\'s, a key the row lacks taking its default', async () => {
    const database = await openTestDatabase(kind);
    try {
      const store = new PostgresSyncStore(database.db);
      const [user, other] = [await createTestUser(database), await createTestUser(database)];
      await sql`update users set notification_settings = '{"conflictAlerts": false}' where id = ${user}`.execute(database.db);
      const settingsOf = (id: number) => store.inUserTransaction(id, (uow) => uow.readNotificationSettings());
      expect(await settingsOf(user)).toEqual({ ...DEFAULT_NOTIFICATION_SETTINGS, conflictAlerts: false });
      expect(await settingsOf(other)).toEqual(DEFAULT_NOTIFICATION_SETTINGS);
    } finally {
      await database.close();
    }
  });
});
