import { FixedClock, InMemorySyncStore } from '@calsync/testkit';
import { describe, expect, it } from 'vitest';
import { CursorCodec } from '../cursor/cursor-codec.js';
import type { UserAlert } from '../ports/change-feed.js';
import { DEFAULT_NOTIFICATION_SETTINGS, type NotificationSettings } from '../ports/user-store.js';
import { SyncService } from '../sync/sync-service.js';
import { ConflictAlerts, withConflictAlerts } from './conflict-alerts.js';

const U = 1;

function setup(settings: NotificationSettings = DEFAULT_NOTIFICATION_SETTINGS) {
  const store = new InMemorySyncStore();
  const engine = new SyncService({ store, clock: new FixedClock(), cursorCodec: new CursorCodec('k') });
  const announced: UserAlert[] = [];
  const pushed: UserAlert[] = [];
  const alerts = new ConflictAlerts({ feed: { announceAlert: async (a) => void announced.push(a) }, settings: async () => settings, pushes: { alerted: (a) => pushed.push(a) } });
  return { sync: withConflictAlerts(engine, alerts), announced, pushed };
}

const settle = () => new Promise((r) => setTimeout(r, 10));

describe('conflict alerts', () => {
  it('a push that makes a conflict alerts the other devices (stream and FCM) with the pushing device named; other members work as before', async () => {
    const { sync, announced, pushed } = setup();
    const made = await sync.push(U, { tasks: [{ uid: 't', op: 'upsert', baseVersion: null, fields: { title: 'one' } }] }, 'phone');
    const v1 = made.tasks[0]!.status === 'created' ? made.tasks[0]!.version : null;
    await sync.push(U, { tasks: [{ uid: 't', op: 'upsert', baseVersion: v1, fields: { title: 'laptop' } }] }, 'laptop');
    await settle();
    expect(announced).toEqual([]);
    const clash = await sync.push(U, { tasks: [{ uid: 't', op: 'upsert', baseVersion: v1, fields: { title: 'phone' } }] }, 'phone');
    expect(clash.conflicts).toHaveLength(1);
    await settle();
    const expected = { kind: 'conflict', userId: U, deviceUid: 'phone', conflictId: clash.conflicts[0]!.conflictId, entityType: 'TASK', entityUid: 't' };
    expect(announced).toEqual([expected]);
    expect(pushed).toEqual([expected]);
    expect((await sync.listConflicts(U, {})).conflicts).toHaveLength(1);
  });

  it('sends nothing when the user turned conflictAlerts off', async () => {
    const { sync, announced, pushed } = setup({ ...DEFAULT_NOTIFICATION_SETTINGS, conflictAlerts: false });
    const made = await sync.push(U, { tasks: [{ uid: 't', op: 'upsert', baseVersion: null, fields: { title: 'one' } }] });
    const v1 = made.tasks[0]!.status === 'created' ? made.tasks[0]!.version : null;
    await sync.push(U, { tasks: [{ uid: 't', op: 'upsert', baseVersion: v1, fields: { title: 'a' } }] });
    const clash = await sync.push(U, { tasks: [{ uid: 't', op: 'upsert', baseVersion: v1, fields: { title: 'b' } }] });
    expect(clash.conflicts).toHaveLength(1);
    await settle();
    expect(announced).toEqual([]);
    expect(pushed).toEqual([]);
  });
});
