import { inMemoryAuthStores, type InMemoryDeviceStore, type InMemoryUserStore, startStandInFcm, type StandInFcm } from '@calsync/testkit';
import type { ReminderAlert } from '@calsync/domain';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FcmAlertNotifier } from './fcm-alert-notifier.js';
import { FcmClient } from './fcm-client.js';
import { loadServiceAccount } from './service-account.js';

const NOW = '2026-01-01T00:00:00.000Z';
let fcm: StandInFcm;
let users: InMemoryUserStore;
let devices: InMemoryDeviceStore;
let failures: string[];

beforeEach(async () => {
  fcm = await startStandInFcm();
  ({ users, devices } = inMemoryAuthStores());
  failures = [];
});
afterEach(() => fcm.close());

async function notifier(): Promise<FcmAlertNotifier> {
  const sender = new FcmClient({ projectId: fcm.projectId, account: await loadServiceAccount(fcm.serviceAccountJson), endpoint: fcm.endpoint, tokenUrl: fcm.tokenUrl, sleep: async () => {} });
  return new FcmAlertNotifier({ sender, devices, observer: { sent: () => {}, failed: (reason) => failures.push(reason) } });
}

async function userWithDevices(phone: string, tokens: Record<string, string | null>): Promise<number> {
  const { user } = await users.createPhoneUser({ phone, name: 'A', now: NOW });
  for (const [uid, fcmToken] of Object.entries(tokens)) await devices.upsertDevice(user.id, { uid, fcmToken }, NOW);
  return user.id;
}

const reminder = (userId: number, uid: string): ReminderAlert => ({
  kind: 'reminder', userId, reminderUid: uid, eventUid: 'ev', occurrenceStart: '2026-01-01T09:00:00.000Z', title: 'Dentist', start: '2026-01-01T09:00:00.000Z', dueAt: '2026-01-01T08:50:00.000Z',
});

describe('FcmAlertNotifier', () => {
  it('each reminder is one visible notification per device with a token, not coalesced', async () => {
    const userId = await userWithDevices('+15550000101', { phone: 'tok-phone', laptop: 'tok-laptop', tablet: null });
    const n = await notifier();
    n.alerted(reminder(userId, 'r1'));
    n.alerted(reminder(userId, 'r2'));
    await n.idle();
    expect(fcm.rejected).toEqual([]);
    expect(fcm.delivered.map((m) => [m.token, m.data.type, m.data.reminderUid]).sort()).toEqual([
      ['tok-laptop', 'reminder', 'r1'],
      ['tok-laptop', 'reminder', 'r2'],
      ['tok-phone', 'reminder', 'r1'],
      ['tok-phone', 'reminder', 'r2'],
    ]);
    const one = fcm.delivered[0]!;
    expect(one.message.notification).toEqual({ title: 'Dentist', body: '2026-01-01 09:00 UTC' });
    expect(one.data).toMatchObject({ eventUid: 'ev', occurrenceStart: '2026-01-01T09:00:00.000Z', dueAt: '2026-01-01T08:50:00.000Z' });
  });

  it('a conflict alert skips the device that made the conflict', async () => {
    const userId = await userWithDevices('+15550000102', { phone: 'tok-phone', laptop: 'tok-laptop' });
    const n = await notifier();
    n.alerted({ kind: 'conflict', userId, deviceUid: 'phone', conflictId: 7, entityType: 'EVENT', entityUid: 'e1' });
    await n.idle();
    expect(fcm.rejected).toEqual([]);
    expect(fcm.delivered.map((m) => [m.token, m.data])).toEqual([['tok-laptop', { type: 'conflict', conflictId: '7', entityType: 'EVENT', entityUid: 'e1' }]]);
  });

  it('clears a token FCM calls unregistered', async () => {
    const userId = await userWithDevices('+15550000103', { phone: 'tok-dead' });
    fcm.behave('tok-dead', { kind: 'unregistered' });
    const n = await notifier();
    n.alerted(reminder(userId, 'r1'));
    await n.idle();
    expect(failures).toEqual(['unregistered']);
    expect((await devices.listActiveDevices(userId))[0]!.fcmToken).toBeNull();
  });
});
