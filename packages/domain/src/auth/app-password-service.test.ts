import { describe, expect, it } from 'vitest';
import { CapturingSmsSender, CheapPasswordHasher, FakeTokenSigner, FixedClock, InMemoryChangeFeed, InMemorySyncStore, ManualAuthClock, SeededRandom, inMemoryAuthStores } from '@calsync/testkit';
import { CursorCodec } from '../cursor/cursor-codec.js';
import type { ChangeFeed } from '../ports/change-feed.js';
import { SyncService } from '../sync/sync-service.js';
import { AppPasswordService, appPasswordRevocations } from './app-password-service.js';
import { AuthService } from './auth-service.js';

const PHONE = '+491701234567';

/** A sign-in service and an app password of one user; revokes are announced on `feed` through the app passwords' revocations. */
async function setup(feed: Pick<ChangeFeed, 'subscribe' | 'announceSessionEnd'>, cacheMs = 2000) {
  const stores = inMemoryAuthStores();
  const clock = new ManualAuthClock();
  const random = new SeededRandom(3);
  const appPasswords = new AppPasswordService({ users: stores.users, devices: stores.devices, random, clock, cacheMs });
  const sms = new CapturingSmsSender();
  const auth = new AuthService(
    {
      ...stores,
      sync: new SyncService({ store: new InMemorySyncStore(), clock: new FixedClock(), cursorCodec: new CursorCodec('k') }),
      sms,
      hasher: new CheapPasswordHasher(),
      tokens: new FakeTokenSigner(),
      clock,
      random,
      sessionEnds: appPasswordRevocations(appPasswords, feed),
    },
    { accessTtlSeconds: 900, refreshTtlSeconds: 86400, sessionCacheSeconds: 2, otp: { ttlSeconds: 300, maxAttempts: 5, resendSeconds: 60, maxSendsPerHour: 50, smsMaxPerHour: 1000, smsMaxPerIpPerHour: 10, hmacKey: 'k' } },
  );
  await auth.sendOtp(PHONE);
  const signedIn = await auth.verifyOtp(PHONE, sms.lastCode(PHONE), { uid: 'web-1' });
  const caller = { userId: signedIn.user.id, sessionId: 'irrelevant', deviceUid: 'web-1' };
  const { password, device } = await appPasswords.create(caller, 'Thunderbird');
  return { stores, clock, appPasswords, auth, caller, password, deviceUid: device.uid, userId: signedIn.user.id };
}

describe('AppPasswordService verified sign-in cache', () => {
  it('reuses a verified sign-in without reading the store, but never for a wrong password or user name', async () => {
    const s = await setup(new InMemoryChangeFeed());
    expect(await s.appPasswords.authenticate(PHONE, s.password)).toEqual({ userId: s.userId, deviceUid: s.deviceUid });
    // The store no longer holds the password (as if revoked on another node that could not tell us): the entry is reused until it expires.
    await s.stores.devices.revokeDevice(s.userId, s.deviceUid, s.clock.now().toISOString());
    expect(await s.appPasswords.authenticate(PHONE, s.password)).toEqual({ userId: s.userId, deviceUid: s.deviceUid });
    expect(await s.appPasswords.authenticate(PHONE, `${s.password}x`)).toBeNull();
    expect(await s.appPasswords.authenticate('+15550000000', s.password)).toBeNull();
    s.clock.advanceSeconds(2);
    expect(await s.appPasswords.authenticate(PHONE, s.password)).toBeNull();
  });

  it('refuses a revoked app password on the next request even when the feed delivers late (this node is told first)', async () => {
    const announced: unknown[] = [];
    // A feed that delivers nothing (PostgreSQL's NOTIFY reaches this node only after a while).
    const silent = { subscribe: () => () => {}, announceSessionEnd: async (end: unknown) => void announced.push(end) };
    const s = await setup(silent);
    expect(await s.appPasswords.authenticate(PHONE, s.password)).not.toBeNull();
    await s.auth.revokeDevice(s.caller, s.deviceUid);
    expect(await s.appPasswords.authenticate(PHONE, s.password)).toBeNull();
    expect(announced).toEqual([{ userId: s.userId, deviceUid: s.deviceUid }]);
  });

  it('drops a sign-in revoked on another node when the feed tells, and everything after a feed outage', async () => {
    const feed = new InMemoryChangeFeed();
    const s = await setup(feed);
    // Another node: its own app-password service on the same stores and feed.
    const other = new AppPasswordService({ users: s.stores.users, devices: s.stores.devices, random: new SeededRandom(4), clock: s.clock, cacheMs: 2000 });
    const stop = appPasswordRevocations(other, feed).stop;
    expect(await other.authenticate(PHONE, s.password)).not.toBeNull();
    await s.auth.revokeDevice(s.caller, s.deviceUid);
    expect(await other.authenticate(PHONE, s.password)).toBeNull();

    const second = await s.appPasswords.create(s.caller, 'DAVx5');
    expect(await other.authenticate(PHONE, second.password)).not.toBeNull();
    await s.stores.devices.revokeDevice(s.userId, second.device.uid, s.clock.now().toISOString());
    feed.resync();
    expect(await other.authenticate(PHONE, second.password)).toBeNull();
    stop();
  });

  it('reads the store on every request without a cache time', async () => {
    const s = await setup(new InMemoryChangeFeed(), 0);
    expect(await s.appPasswords.authenticate(PHONE, s.password)).not.toBeNull();
    await s.stores.devices.revokeDevice(s.userId, s.deviceUid, s.clock.now().toISOString());
    expect(await s.appPasswords.authenticate(PHONE, s.password)).toBeNull();
  });
});
