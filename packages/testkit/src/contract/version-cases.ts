import { describe, expect, it } from 'vitest';
import { RECORD_TYPES } from '@calsync/domain';
import { T2, insertRows, sampleFields, type MakeStore, type StoreHarness } from './fixtures.js';

/** Global sequence and change-feed cases. */
export function versionCases(harness: () => StoreHarness, makeStore: MakeStore): void {
  describe('versions and changes', () => {
    it('a fresh store reports currentVersion 0 until a version is issued', async () => {
      const fresh = await makeStore();
      try {
        const user = await fresh.createUser();
        expect(await fresh.store.inUserTransaction(user, (uow) => uow.currentVersion())).toBe(0n);
        const [first] = await fresh.store.inUserTransaction(user, (uow) => uow.nextVersions(1));
        expect(first! > 0n).toBe(true);
        expect(await fresh.store.inUserTransaction(user, (uow) => uow.currentVersion())).toBe(first);
      } finally {
        await fresh.close();
      }
    });

    it('versions strictly increase across calls, record types and users; currentVersion is the last issued', async () => {
      const { store, createUser } = harness();
      const [a, b] = [await createUser(), await createUser()];
      const issued: bigint[] = [];
      for (const user of [a, b, a, b]) {
        const batch = await store.inUserTransaction(user, async (uow) => {
          const versions = await uow.nextVersions(3);
          expect(await uow.currentVersion()).toBe(versions[2]);
          return versions;
        });
        issued.push(...batch);
      }
      expect(await store.inUserTransaction(a, (uow) => uow.nextVersions(0))).toEqual([]);
      for (let i = 1; i < issued.length; i++) expect(issued[i]! > issued[i - 1]!).toBe(true);
      const rows = await insertRows(store, a, RECORD_TYPES.map((type, i) => ({ type, uid: `seq-${i}`, fields: type === 'calendars' ? sampleFields('calendars') : minimalFields(type) })));
      expect(rows[0]!.version > issued.at(-1)!).toBe(true);
      for (let i = 1; i < rows.length; i++) expect(rows[i]!.version > rows[i - 1]!.version).toBe(true);
      expect(await store.inUserTransaction(b, (uow) => uow.currentVersion())).toBe(rows.at(-1)!.version);
    });

    it('readChanges honours (after, upTo], orders by version, limits, includes tombstones and is per type and user', async () => {
      const { store, createUser } = harness();
      const [user, other] = [await createUser(), await createUser()];
      const rows = await insertRows(store, user, [
        { type: 'tasks', uid: 'rc-1', fields: sampleFields('tasks') },
        { type: 'calendars', uid: 'rc-cal', fields: sampleFields('calendars') },
        { type: 'tasks', uid: 'rc-2', fields: sampleFields('tasks'), deleted: T2 },
        { type: 'tasks', uid: 'rc-3', fields: sampleFields('tasks') },
        { type: 'tasks', uid: 'rc-4', fields: sampleFields('tasks') },
      ]);
      await insertRows(store, other, [{ type: 'tasks', uid: 'rc-2', fields: sampleFields('tasks') }]);
      const v = rows.map((r) => r.version);
      const top = await store.inUserTransaction(user, (uow) => uow.currentVersion());
      await store.inUserTransaction(user, async (uow) => {
        const uids = async (after: bigint, upTo: bigint, limit: number) =>
          (await uow.readChanges('tasks', after, upTo, limit)).map((r) => r.uid);
        expect(await uids(0n, top, 100)).toEqual(['rc-1', 'rc-2', 'rc-3', 'rc-4']);
        expect(await uids(v[0]!, v[3]!, 100)).toEqual(['rc-2', 'rc-3']);
        expect(await uids(v[0]!, top, 2)).toEqual(['rc-2', 'rc-3']);
        expect(await uids(v[4]!, top, 100)).toEqual([]);
        expect(await uids(0n, v[0]! - 1n, 100)).toEqual([]);
        const tomb = (await uow.readChanges('tasks', v[0]!, v[2]!, 1))[0]!;
        expect(tomb).toEqual(rows[2]);
        expect((await uow.readChanges('calendars', 0n, top, 100)).map((r) => r.uid)).toEqual(['rc-cal']);
      });
      await store.inUserTransaction(other, async (uow) => {
        const theirs = await uow.readChanges('tasks', 0n, top + 1000n, 100);
        expect(theirs.map((r) => [r.uid, r.userId, r.deleted])).toEqual([['rc-2', other, null]]);
      });
    });
  });
}

function minimalFields(type: 'events' | 'tasks' | 'reminders') {
  if (type === 'events') return sampleFields('events', { calendarUid: 'seq-0' });
  if (type === 'tasks') return sampleFields('tasks');
  return sampleFields('reminders', { eventUid: 'seq-1' });
}
