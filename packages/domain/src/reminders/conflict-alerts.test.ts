import { FixedClock, InMemorySyncStore } from '@calsync/testkit';
import { describe, expect, it } from 'vitest';
import { CursorCodec } from '../cursor/cursor-codec.js';
import type { UserAlert } from '../ports/change-feed.js';
import { DEFAULT_NOTIFICATION_SETTINGS, type NotificationSettings } from '../ports/user-store.js';
import { SyncService } from '../sync/sync-service.js';

const U = 1;

function setup(settings: NotificationSettings = DEFAULT_NOTIFICATION_SETTINGS) {
  const store = new InMemorySyncStore({ settings: async () => settings });
  const announced: UserAlert[] = [];
  const pushed: UserAlert[] = [];
  store.changes.subscribe({ changed: () => {}, sessionEnded: () => {}, resynced: () => {}, alerted: (a) => announced.push(a) });
  const sync = new SyncService({ store, clock: new FixedClock(), cursorCodec: new CursorCodec('k'), alerts: { alerted: (a) => pushed.push(a) } });
  return { sync, announced, pushed };
}

const task = (title: string, baseVersion: string | null) => ({ tasks: [{ uid: 't', op: 'upsert' as const, baseVersion, fields: { title } }] });

describe('conflict alerts', () => {
  it('a push that makes a conflict announces it with its commit (streams) and then tells the notifier (FCM), the pushing device named', async () => {
    const { sync, announced, pushed } = setup();
    const made = await sync.push(U, task('one', null), 'phone');
    const v1 = made.tasks[0]!.status === 'created' ? made.tasks[0]!.version : null;
    await sync.push(U, task('laptop', v1), 'laptop');
    expect(announced).toEqual([]);
    const clash = await sync.push(U, task('phone', v1), 'phone');
    expect(clash.conflicts).toHaveLength(1);
    const expected = { kind: 'conflict', userId: U, deviceUid: 'phone', conflictId: clash.conflicts[0]!.conflictId, entityType: 'TASK', entityUid: 't' };
    // Both have happened by the time the push answers: the alert travels with the commit.
    expect(announced).toEqual([expected]);
    expect(pushed).toEqual([expected]);
    expect((await sync.listConflicts(U, {})).conflicts).toHaveLength(1);
  });

  it('pushes committed as one group each alert their own conflicts', async () => {
    const { sync, announced, pushed } = setup();
    const made = await sync.push(U, { tasks: [{ uid: 'a', op: 'upsert', baseVersion: null, fields: { title: 'a' } }, { uid: 'b', op: 'upsert', baseVersion: null, fields: { title: 'b' } }] });
    const [va, vb] = made.tasks.map((r) => (r.status === 'created' ? r.version : null));
    await sync.push(U, { tasks: [{ uid: 'a', op: 'upsert', baseVersion: va!, fields: { title: 'a2' } }, { uid: 'b', op: 'upsert', baseVersion: vb!, fields: { title: 'b2' } }] });
    // Three pushes at once: the second and third queue behind the first and commit as one group.
    const [, p2, p3] = await Promise.all([
      sync.push(U, task('x', null), 'one'),
      sync.push(U, { tasks: [{ uid: 'a', op: 'upsert', baseVersion: va!, fields: { title: 'stale a' } }] }, 'two'),
      sync.push(U, { tasks: [{ uid: 'b', op: 'upsert', baseVersion: vb!, fields: { title: 'stale b' } }] }, 'three'),
    ]);
    const alertOf = (deviceUid: string, uid: string, conflictId: number) => ({ kind: 'conflict', userId: U, deviceUid, conflictId, entityType: 'TASK', entityUid: uid });
    const expected = [alertOf('two', 'a', p2.conflicts[0]!.conflictId), alertOf('three', 'b', p3.conflicts[0]!.conflictId)];
    expect(announced).toEqual(expected);
    expect(pushed).toEqual(expected);
  });

  it('sends nothing when the user turned conflictAlerts off', async () => {
    const { sync, announced, pushed } = setup({ ...DEFAULT_NOTIFICATION_SETTINGS, conflictAlerts: false });
    const made = await sync.push(U, task('one', null));
    const v1 = made.tasks[0]!.status === 'created' ? made.tasks[0]!.version : null;
    await sync.push(U, task('a', v1));
    const clash = await sync.push(U, task('b', v1));
    expect(clash.conflicts).toHaveLength(1);
    expect(announced).toEqual([]);
    expect(pushed).toEqual([]);
  });
});
