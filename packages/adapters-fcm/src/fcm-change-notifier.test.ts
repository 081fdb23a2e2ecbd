import { inMemoryAuthStores, type InMemoryDeviceStore, type InMemoryUserStore, startStandInFcm, type StandInFcm } from '@calsync/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FcmChangeNotifier } from './fcm-change-notifier.js';
import { FcmClient } from './fcm-client.js';
import { loadServiceAccount } from './service-account.js';

const NOW = '2026-01-01T00:00:00.000Z';
let fcm: StandInFcm;
let users: InMemoryUserStore;
let devices: InMemoryDeviceStore;
let failures: string[];
let sent: number;

beforeEach(async () => {
  fcm = await startStandInFcm();
  ({ users, devices } = inMemoryAuthStores());
  failures = [];
  sent = 0;
});
afterEach(() => fcm.close());

async function notifier(coalesceMs = 50): Promise<FcmChangeNotifier> {
  const sender = new FcmClient({ projectId: fcm.projectId, account: await loadServiceAccount(fcm.serviceAccountJson), endpoint: fcm.endpoint, tokenUrl: fcm.tokenUrl, sleep: async () => {} });
  return new FcmChangeNotifier({
    sender,
    devices,
    users,
    coalesceMs,
    observer: { sent: () => sent++, failed: (reason) => failures.push(reason) },
  });
}

async function userWithDevices(phone: string, tokens: Record<string, string | null>): Promise<number> {
  const { user } = await users.createPhoneUser({ phone, name: 'A', now: NOW });
  for (const [uid, fcmToken] of Object.entries(tokens)) await devices.upsertDevice(user.id, { uid, fcmToken }, NOW);
  return user.id;
}

describe('FcmChangeNotifier', () => {
  it('a burst of 20 changes is one message per other device, with the newest version it did not make', async () => {
    const userId = await userWithDevices('+15550000001', { phone: 'tok-phone', laptop: 'tok-laptop', tablet: null });
    const n = await notifier();
    for (let v = 1; v <= 20; v++) n.committed({ userId, version: BigInt(v), deviceUid: v === 20 ? 'laptop' : 'phone' });
    await n.idle();
    expect(fcm.rejected).toEqual([]);
    expect(fcm.delivered.map((m) => [m.token, m.data.version]).sort()).toEqual([
      ['tok-laptop', '19'],
      ['tok-phone', '20'],
    ]);
    expect(sent).toBe(2);
  });

  it('the device that made every change, a device without a token and revoked devices get nothing', async () => {
    const userId = await userWithDevices('+15550000002', { phone: 'tok-phone', old: 'tok-old', bare: null });
    await devices.revokeDevice(userId, 'old', NOW);
    const n = await notifier();
    n.committed({ userId, version: 5n, deviceUid: 'phone' });
    await n.idle();
    expect(fcm.attempts).toEqual([]);
  });

  it('a user who switched syncNotifications off gets no pushes', async () => {
    const userId = await userWithDevices('+15550000003', { phone: 'tok-phone' });
    await users.updateProfile(userId, { notificationSettings: { syncNotifications: false, eventReminders: true, conflictAlerts: true } });
    const n = await notifier();
    n.committed({ userId, version: 5n, deviceUid: null });
    await n.idle();
    expect(fcm.attempts).toEqual([]);
  });

  it('clears UNREGISTERED and invalid tokens from their devices and counts the failures by reason', async () => {
    const userId = await userWithDevices('+15550000004', { a: 'tok-gone', b: 'tok-bad', c: 'tok-ok' });
    fcm.behave('tok-gone', { kind: 'unregistered' });
    fcm.behave('tok-bad', { kind: 'invalid' });
    const n = await notifier();
    n.committed({ userId, version: 9n, deviceUid: null });
    await n.idle();
    const tokens = Object.fromEntries((await devices.listActiveDevices(userId)).map((d) => [d.uid, d.fcmToken]));
    expect(tokens).toEqual({ a: null, b: null, c: 'tok-ok' });
    expect(failures.sort()).toEqual(['invalid-token', 'unregistered']);
    expect(sent).toBe(1);
  });

  it('a failure of FCM or of the device lookup never throws into the caller', async () => {
    const userId = await userWithDevices('+15550000005', { a: 'tok-a' });
    fcm.behave('tok-a', { kind: 'flaky', failures: 99, status: 503 });
    const n = await notifier(0);
    expect(() => n.committed({ userId, version: 1n, deviceUid: null })).not.toThrow();
    await n.idle();
    expect(failures).toEqual(['unavailable']);
    const broken = new FcmChangeNotifier({
      sender: { send: async () => ({ ok: true }) },
      devices: { listActiveDevices: async () => Promise.reject(new Error('db down')), clearFcmToken: async () => {} },
      users,
      coalesceMs: 0,
      observer: { sent: () => sent++, failed: (reason) => failures.push(reason) },
    });
    broken.committed({ userId, version: 2n, deviceUid: null });
    await broken.idle();
    expect(failures).toEqual(['unavailable', 'lookup']);
  });
});
