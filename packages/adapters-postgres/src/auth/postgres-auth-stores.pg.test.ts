import { sql } from 'kysely';
import { runAuthStoreContract } from '@calsync/testkit';
import { announceDatabaseKinds, openTestDatabase } from '../../test-support/index.js';
import { PostgresAuthStore } from './postgres-auth-store.js';
import { PostgresUserStore } from './postgres-user-store.js';

for (const kind of announceDatabaseKinds('auth stores')) {
  runAuthStoreContract(kind, async () => {
    const database = await openTestDatabase(kind);
    return {
      users: new PostgresUserStore(database.db),
      store: new PostgresAuthStore(database.db),
      async defaultCalendars(userId) {
        const { rows } = await sql<{ uid: string; name: string; is_default: boolean; version: string }>`
          select uid, name, is_default, version from calendars where user_id = ${userId} and deleted is null`.execute(database.db);
        return rows.map((r) => ({ uid: r.uid, name: r.name, isDefault: r.is_default, version: BigInt(r.version) }));
      },
      close: () => database.close(),
    };
  });
}
