import { DEFAULT_NOTIFICATION_SETTINGS, perRecordType } from '@calsync/domain';
import { runSyncStoreContract } from '@calsync/testkit/contracts';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { PostgresSyncStore } from './postgres-sync-store.js';
import { withBatchConnection } from './batch-connection.js';
import { PostgresUnitOfWork } from './postgres-unit-of-work.js';
import { announceDatabaseKinds, createTestUser, openTestDatabase, recordingBatches } from '../test-support/index.js';

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

  it('come with a prefetch that draws a conflict id ahead, so reading them then takes no round trip', async () => {
    const database = await openTestDatabase(kind);
    try {
      const [user, other] = [await createTestUser(database), await createTestUser(database)];
      await sql`update users set notification_settings = '{"conflictAlerts": false}' where id = ${user}`.execute(database.db);
      const none = perRecordType((): string[] => []);
      // Each unit: a prefetch with `ahead`, then the settings; answers the settings and the batches each call sent.
      const unit = (id: number, ahead: { conflictIds?: number }) =>
        withBatchConnection(database.db, async (conn) => {
          const { connection, batches } = recordingBatches(conn);
          const uow = new PostgresUnitOfWork(database.db, connection, id);
          await uow.prefetch(none, [], { versions: 1, ...ahead });
          const afterPrefetch = batches.length;
          const settings = await uow.readNotificationSettings();
          const afterSettings = batches.length;
          await uow.finish();
          return { settings, batches: [afterPrefetch, afterSettings] };
        });
      expect(await unit(user, { conflictIds: 1 })).toEqual({ settings: { ...DEFAULT_NOTIFICATION_SETTINGS, conflictAlerts: false }, batches: [1, 1] });
      expect(await unit(other, { conflictIds: 1 })).toEqual({ settings: DEFAULT_NOTIFICATION_SETTINGS, batches: [1, 1] });
      // No conflict drawn ahead: the settings are a read of their own, with the same answer.
      expect(await unit(user, {})).toEqual({ settings: { ...DEFAULT_NOTIFICATION_SETTINGS, conflictAlerts: false }, batches: [1, 2] });
    } finally {
      await database.close();
    }
  });
});
