import { describe, expect, it } from 'vitest';
import { DEFAULT_NOTIFICATION_SETTINGS, type ChangeFeed, type ConflictAlert, type DataChange, type UserAlert } from '@calsync/domain';
import { insertRows, insertsOf, newRow, nextVersions, pause, sampleFields, type StoreHarness } from './fixtures.js';
import { until } from '../until.js';

/** Subscribes to the feed and collects every change delivered. */
function collect(feed: ChangeFeed): { changes: DataChange[]; stop: () => void } {
  const changes: DataChange[] = [];
  const stop = feed.subscribe({ changed: (c) => changes.push(c), sessionEnded: () => {}, resynced: () => {} });
  return { changes, stop };
}

/** `newestVersion` and `announceChange` with the store's paired change feed. */
export function announceCases(harness: () => StoreHarness): void {
  describe('newest version and change announcements', () => {
    it('newestVersion is the highest version of the user\'s own rows, tombstones included', async () => {
      const { store, createUser } = harness();
      const [a, b] = [await createUser(), await createUser()];
      expect(await store.newestVersion(a)).toBe(0n);
      const [row] = await insertRows(store, a, [{ type: 'tasks', uid: 'nv-1', fields: sampleFields('tasks') }]);
      await insertRows(store, b, [{ type: 'calendars', uid: 'nv-2', fields: sampleFields('calendars') }]);
      expect(await store.newestVersion(a)).toBe(row!.version);
      const deletedAt = await store.inUserTransaction(a, async (uow) => {
        const [v] = await nextVersions(uow, 1);
        await uow.applyWrites(await insertsOf(uow, [newRow('tasks', a, 'nv-3', v!, sampleFields('tasks'), '2024-03-03T00:00:00.000Z')]));
        return v!;
      });
      expect(await store.newestVersion(a)).toBe(deletedAt);
    });

    it('an announced change reaches subscribers once the unit commits; a rolled-back one never does', async () => {
      const { store, createUser, feed } = harness();
      const user = await createUser();
      const seen = collect(feed);
      try {
        await expect(
          store.inUserTransaction(user, async (uow) => {
            await uow.announceChange({ userId: user, version: 7n, deviceUid: 'rolled-back' });
            throw new Error('rollback');
          }),
        ).rejects.toThrow('rollback');
        await store.inUserTransaction(user, async (uow) => {
          await uow.announceChange({ userId: user, version: 8n, deviceUid: 'phone' });
          await uow.announceChange({ userId: user, version: 9n, deviceUid: null });
          await pause(20);
          expect(seen.changes.filter((c) => c.userId === user)).toEqual([]);
        });
        await until(() => seen.changes.some((c) => c.userId === user && c.version === 9n));
        // Changes of one user arrive in commit order, so the rolled-back one would have come first.
        expect(seen.changes.filter((c) => c.userId === user)).toEqual([
          { userId: user, version: 8n, deviceUid: 'phone' },
          { userId: user, version: 9n, deviceUid: null },
        ]);
      } finally {
        seen.stop();
      }
    });

    it('announced alerts reach subscribers once the unit commits, in order; those of a rolled-back unit never do', async () => {
      const { store, createUser, feed } = harness();
      const user = await createUser();
      const alerts: UserAlert[] = [];
      const stop = feed.subscribe({ changed: () => {}, sessionEnded: () => {}, resynced: () => {}, alerted: (a) => alerts.push(a) });
      const alert = (conflictId: number, deviceUid: string | null): ConflictAlert => ({ kind: 'conflict', userId: user, deviceUid, conflictId, entityType: 'TASK', entityUid: `t-${conflictId}` });
      try {
        await expect(
          store.inUserTransaction(user, async (uow) => {
            await uow.announceAlerts([alert(1, 'rolled-back')]);
            throw new Error('rollback');
          }),
        ).rejects.toThrow('rollback');
        await store.inUserTransaction(user, async (uow) => {
          await uow.announceAlerts([alert(2, 'phone'), alert(3, null)]);
          await pause(20);
          expect(alerts.filter((a) => a.userId === user)).toEqual([]);
        });
        await until(() => alerts.some((a) => a.userId === user && a.kind === 'conflict' && a.conflictId === 3));
        expect(alerts.filter((a) => a.userId === user)).toEqual([alert(2, 'phone'), alert(3, null)]);
      } finally {
        stop();
      }
    });

    it('a unit\'s changes and alerts, announced between its writes, reach subscribers once it commits, each kind in the order announced', async () => {
      const { store, createUser, feed } = harness();
      const user = await createUser();
      const heard: string[] = [];
      const stop = feed.subscribe({
        changed: (c) => void (c.userId === user && heard.push(`change ${c.version}`)),
        sessionEnded: () => {},
        resynced: () => {},
        alerted: (a) => void (a.userId === user && a.kind === 'conflict' && heard.push(`alert ${a.conflictId}`)),
      });
      const alert = (conflictId: number): ConflictAlert => ({ kind: 'conflict', userId: user, deviceUid: null, conflictId, entityType: 'TASK', entityUid: `t-${conflictId}` });
      try {
        const [v1, v2] = await store.inUserTransaction(user, async (uow) => {
          const [v1, v2] = await nextVersions(uow, 2);
          await uow.applyWrites(await insertsOf(uow, [newRow('tasks', user, 'order-1', v1!, sampleFields('tasks'))]));
          await uow.announceChange({ userId: user, version: v1!, deviceUid: 'phone' });
          await uow.announceAlerts([alert(11), alert(12)]);
          await uow.applyWrites(await insertsOf(uow, [newRow('tasks', user, 'order-2', v2!, sampleFields('tasks'))]));
          await uow.announceChange({ userId: user, version: v2!, deviceUid: 'phone' });
          await uow.announceAlerts([alert(13)]);
          heard.push('committing');
          return [v1!, v2!];
        });
        await until(() => heard.length === 6);
        expect(heard[0]).toBe('committing');
        expect(heard.filter((h) => h.startsWith('change'))).toEqual([`change ${v1}`, `change ${v2}`]);
        expect(heard.filter((h) => h.startsWith('alert'))).toEqual(['alert 11', 'alert 12', 'alert 13']);
      } finally {
        stop();
      }
    });

    it('a unit reads a new user\'s notification settings as the defaults', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      expect(await store.inUserTransaction(user, (uow) => uow.readNotificationSettings())).toEqual(DEFAULT_NOTIFICATION_SETTINGS);
    });

    it('session ends reach every subscriber', async () => {
      const { feed } = harness();
      const ends: unknown[] = [];
      const stop = feed.subscribe({ changed: () => {}, sessionEnded: (e) => ends.push(e), resynced: () => {} });
      try {
        await feed.announceSessionEnd({ userId: 41, sessionId: 'sid-1' });
        await feed.announceSessionEnd({ userId: 41, deviceUid: 'phone-2' });
        await until(() => ends.length === 2);
        expect(ends).toEqual([{ userId: 41, sessionId: 'sid-1' }, { userId: 41, deviceUid: 'phone-2' }]);
      } finally {
        stop();
      }
    });
  });
}
