import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordType } from '@calsync/domain';
import { boundOf, insertsOf, nextVersions } from '@calsync/testkit/contracts';
import { PostgresLegacyStatsStore } from './postgres-legacy-stats-store.js';
import { PostgresSyncStore } from './postgres-sync-store.js';
import { announceDatabaseKinds, createTestUser, openTestDatabase, type TestDatabase } from '../test-support/index.js';

const kinds = announceDatabaseKinds('postgres-legacy-stats-store.pg.test.ts');
const T = '2024-05-01T10:00:00.000Z';

describe.each(kinds)('PostgresLegacyStatsStore (%s)', (kind) => {
  let database: TestDatabase;
  let syncStore: PostgresSyncStore;
  let stats: PostgresLegacyStatsStore;

  beforeAll(async () => {
    database = await openTestDatabase(kind);
    syncStore = new PostgresSyncStore(database.db);
    stats = new PostgresLegacyStatsStore(database.db);
  });
  afterAll(async () => {
    await database?.close();
  });

  const createUser = () => createTestUser(database, T);

  async function insert(userId: number, rows: { type: RecordType; uid: string; fields: Record<string, string | boolean | null>; deleted?: string }[]) {
    await syncStore.inUserTransaction(userId, async (uow) => {
      const versions = await nextVersions(uow, rows.length);
      await uow.applyWrites(await insertsOf(uow, rows.map((r, i) => ({ type: r.type, userId, uid: r.uid, version: versions[i]!, createdAt: T, updatedAt: T, deleted: r.deleted ?? null, fields: r.fields }))));
    });
  }

  async function seed(userId: number): Promise<void> {
    const event = (uid: string, deleted?: string) => ({ type: 'events' as const, uid, fields: { calendarUid: 'c', title: uid, startTime: T, endTime: T, allDay: false }, ...(deleted ? { deleted } : {}) });
    await insert(userId, [
      { type: 'calendars', uid: 'c', fields: { name: 'C', isDefault: true } },
      { type: 'calendars', uid: 'gone', fields: { name: 'G', isDefault: false }, deleted: T },
      event('e1'),
      event('e2'),
      event('e3'),
      event('e4', T),
      { type: 'tasks', uid: 't', fields: { title: 'T', completed: false } },
      { type: 'reminders', uid: 'r', fields: { taskUid: 't' } },
    ]);
    await database.db.updateTable('events').set({ sync_status: 'PENDING' }).where('user_id', '=', userId).where('uid', 'in', ['e1', 'e4']).execute();
    await database.db.updateTable('events').set({ sync_status: 'CONFLICT' }).where('user_id', '=', userId).where('uid', '=', 'e2').execute();
    await database.db.insertInto('devices').values([
      { user_id: userId, uid: 'd1', fcm_token: null, revoked_at: null },
      { user_id: userId, uid: 'd2', fcm_token: null, revoked_at: T },
    ]).execute();
    await syncStore.inUserTransaction(userId, async (uow) => {
      const { conflictIds: [a, b] } = await uow.reserve({ conflictIds: 2 });
      await uow.insertConflicts([
        { conflictId: a!, userId, type: 'events', uid: 'e1', winnerVersion: 1n, loserSnapshot: { uid: 'e1', version: '1' }, createdAt: T },
        { conflictId: b!, userId, type: 'events', uid: 'e2', winnerVersion: 1n, loserSnapshot: { uid: 'e2', version: '1' }, createdAt: T },
      ]);
      await uow.markConflictResolved(a!, T);
    });
  }

  it('counts live records, unresolved conflicts, active devices and live events by syncStatus, per user', async () => {
    const [user, other] = [await createUser(), await createUser()];
    await seed(user);
    await seed(other);
    expect(await stats.stats(user)).toEqual({
      calendars: 1,
      events: 3,
      tasks: 1,
      reminders: 1,
      unresolvedConflicts: 1,
      devices: 1,
      lastSyncTime: T,
      syncStatus: { SYNCED: 1, PENDING: 1, CONFLICT: 1 },
    });
  });

  it('resetSync sets every event SYNCED and lastSyncTime null, counts changed events and issues no version', async () => {
    const [user, other] = [await createUser(), await createUser()];
    await seed(user);
    await seed(other);
    const versionsBefore = await sql<{ version: string }>`select version from events where user_id = ${user} order by uid`.execute(database.db);
    const top = await syncStore.inUserTransaction(user, (uow) => boundOf(uow));
    expect(await stats.resetSync(user)).toBe(3);
    const after = await stats.stats(user);
    expect(after.syncStatus).toEqual({ SYNCED: 3, PENDING: 0, CONFLICT: 0 });
    expect(after.lastSyncTime).toBeNull();
    const versionsAfter = await sql<{ version: string }>`select version from events where user_id = ${user} order by uid`.execute(database.db);
    expect(versionsAfter.rows).toEqual(versionsBefore.rows);
    expect(await syncStore.inUserTransaction(user, (uow) => boundOf(uow))).toBe(top);
    expect(await stats.resetSync(user)).toBe(0);
    expect((await stats.stats(other)).syncStatus).toEqual({ SYNCED: 1, PENDING: 1, CONFLICT: 1 });
    expect((await stats.stats(other)).lastSyncTime).toBe(T);
  });
});
