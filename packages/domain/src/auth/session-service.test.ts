import { describe, expect, it } from 'vitest';
import {
  CapturingSmsSender,
  CheapPasswordHasher,
  FakeTokenSigner,
  inMemoryAuthStores,
  ManualAuthClock,
  InMemorySyncStore,
  FixedClock,
  SeededRandom,
} from '@calsync/testkit';
import { CursorCodec } from '../cursor/cursor-codec.js';
import { isDomainError, type ErrorCode } from '../errors.js';
import { SyncService } from '../sync/sync-service.js';
import { AuthService } from './auth-service.js';

const PHONE = '+491701234567';

function setup() {
  const replays: { userId: number; deviceUid: string | null }[] = [];
  const stores = inMemoryAuthStores();
  const sms = new CapturingSmsSender();
  const clock = new ManualAuthClock();
  const auth = new AuthService(
    { ...stores, sync: new SyncService({ store: new InMemorySyncStore(), clock: new FixedClock(), cursorCodec: new CursorCodec('k') }), sms, hasher: new CheapPasswordHasher(), tokens: new FakeTokenSigner(), clock, random: new SeededRandom(12) },
    {
      accessTtlSeconds: 900,
      refreshTtlSeconds: 86400,
      sessionCacheSeconds: 2,
      otp: { ttlSeconds: 300, maxAttempts: 5, resendSeconds: 60, maxSendsPerHour: 50, smsMaxPerHour: 1000, smsMaxPerIpPerHour: 10, hmacKey: 'k' },
      onReplay: (replay) => replays.push(replay),
    },
  );
  const signIn = async (device?: { uid: string; platform?: string; name?: string; fcmToken?: string }) => {
    clock.advanceSeconds(61);
    await auth.sendOtp(PHONE);
    return auth.verifyOtp(PHONE, sms.lastCode(PHONE), device);
  };
  return { auth, sessions: stores.sessions, devices: stores.devices, clock, signIn, replays };
}

async function code(p: Promise<unknown>): Promise<ErrorCode | 'ok'> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    if (isDomainError(e)) return e.code;
    throw e;
  }
}

describe('refresh token state (per device)', () => {
  it('current --refresh--> replaced: a new pair is issued, the new access token carries the device', async () => {
    const h = setup();
    const s = await h.signIn({ uid: 'phone' });
    const next = await h.auth.refresh(s.refreshToken, 'phone');
    expect(next.refreshToken).not.toBe(s.refreshToken);
    expect(await h.auth.authenticateAccess(next.accessToken)).toMatchObject({ userId: s.user.id, deviceUid: 'phone' });
    await expect(h.auth.refresh(next.refreshToken, 'phone')).resolves.toBeDefined();
  });

  it('replaced --presented again--> the whole family is revoked: newest token and access tokens stop working', async () => {
    const h = setup();
    const s = await h.signIn({ uid: 'phone' });
    const next = await h.auth.refresh(s.refreshToken);
    expect(await code(h.auth.authenticateAccess(next.accessToken))).toBe('ok');
    expect(await code(h.auth.refresh(s.refreshToken))).toBe('REFRESH_INVALID');
    expect(await code(h.auth.refresh(next.refreshToken))).toBe('REFRESH_INVALID');
    expect(await code(h.auth.authenticateAccess(next.accessToken))).toBe('UNAUTHORIZED');
    expect(await code(h.auth.authenticateAccess(s.accessToken))).toBe('UNAUTHORIZED');
    expect([...h.sessions.sessions.values()][0]?.reason).toBe('replay');
    // The operator hears of it once, with whose session it was; a plain invalid token is no replay.
    expect(h.replays).toEqual([{ userId: s.user.id, deviceUid: 'phone' }]);
    expect(await code(h.auth.refresh('garbage'))).toBe('REFRESH_INVALID');
    expect(h.replays).toHaveLength(1);
  });

  it('current --logout--> revoked: refresh and access both refused at once', async () => {
    const h = setup();
    const s = await h.signIn({ uid: 'phone' });
    const caller = await h.auth.authenticateAccess(s.accessToken);
    expect(await h.auth.logout(caller)).toEqual({ loggedOut: true });
    expect(await code(h.auth.refresh(s.refreshToken))).toBe('REFRESH_INVALID');
    expect(await code(h.auth.authenticateAccess(s.accessToken))).toBe('UNAUTHORIZED');
  });

  it('two devices are independent: a replay on one leaves the other signed in', async () => {
    const h = setup();
    const a = await h.signIn({ uid: 'a' });
    const b = await h.signIn({ uid: 'b' });
    await h.auth.refresh(a.refreshToken, 'a');
    expect(await code(h.auth.refresh(a.refreshToken, 'a'))).toBe('REFRESH_INVALID');
    expect(await code(h.auth.authenticateAccess(b.accessToken))).toBe('ok');
    expect(await code(h.auth.refresh(b.refreshToken, 'b'))).toBe('ok');
  });

  it('a deviceUid that is not the token\'s device is refused and does not rotate', async () => {
    const h = setup();
    const a = await h.signIn({ uid: 'a' });
    expect(await code(h.auth.refresh(a.refreshToken, 'b'))).toBe('REFRESH_INVALID');
    expect(await code(h.auth.refresh(a.refreshToken, 'a'))).toBe('ok');
  });

  it('legacy mode: no device, one family per user; a new legacy sign-in replaces the previous one', async () => {
    const h = setup();
    const first = await h.signIn();
    expect(await h.auth.authenticateAccess(first.accessToken)).toMatchObject({ deviceUid: null });
    const device = await h.signIn({ uid: 'a' });
    const second = await h.signIn();
    expect(await code(h.auth.refresh(first.refreshToken))).toBe('REFRESH_INVALID');
    expect(await code(h.auth.refresh(second.refreshToken, 'a'))).toBe('REFRESH_INVALID');
    expect(await code(h.auth.refresh(second.refreshToken))).toBe('ok');
    expect(await code(h.auth.refresh(device.refreshToken, 'a'))).toBe('ok');
  });

  it('re-login with a known device uid reuses the record, updates it and starts a new family', async () => {
    const h = setup();
    const first = await h.signIn({ uid: 'a', platform: 'ios', name: 'Old', fcmToken: 'secret-fcm' });
    const second = await h.signIn({ uid: 'a', platform: 'android', name: 'New' });
    expect(h.devices.devices).toHaveLength(1);
    expect(second.device).toMatchObject({ uid: 'a', platform: 'android', name: 'New', hasPushToken: true, current: true });
    expect(JSON.stringify(second)).not.toContain('secret-fcm');
    expect(await code(h.auth.refresh(first.refreshToken, 'a'))).toBe('REFRESH_INVALID');
    expect(await code(h.auth.refresh(second.refreshToken, 'a'))).toBe('ok');
  });

  it('an expired refresh token is refused; an expired access token answers TOKEN_EXPIRED', async () => {
    const h = setup();
    const s = await h.signIn({ uid: 'a' });
    h.clock.advanceSeconds(900);
    expect(await code(h.auth.authenticateAccess(s.accessToken))).toBe('TOKEN_EXPIRED');
    h.clock.advanceSeconds(86400);
    expect(await code(h.auth.refresh(s.refreshToken))).toBe('REFRESH_INVALID');
  });

  it('token types cannot be swapped: refresh as Bearer and access to refresh give WRONG_TOKEN_TYPE', async () => {
    const h = setup();
    const s = await h.signIn();
    expect(await code(h.auth.authenticateAccess(s.refreshToken))).toBe('WRONG_TOKEN_TYPE');
    expect(await code(h.auth.refresh(s.accessToken))).toBe('WRONG_TOKEN_TYPE');
    expect(await code(h.auth.authenticateAccess('garbage'))).toBe('UNAUTHORIZED');
    expect(await code(h.auth.refresh('garbage'))).toBe('REFRESH_INVALID');
  });

  it('concurrent refreshes with one token never yield two valid children', async () => {
    const h = setup();
    const s = await h.signIn({ uid: 'a' });
    const results = await Promise.allSettled([0, 1, 2, 3].map(() => h.auth.refresh(s.refreshToken, 'a')));
    const ok = results.filter((r) => r.status === 'fulfilled');
    expect(ok.length).toBeLessThanOrEqual(1);
    let usable = 0;
    for (const r of ok) if ((await code(h.auth.refresh(r.value.refreshToken, 'a'))) === 'ok') usable++;
    expect(usable).toBeLessThanOrEqual(1);
  });

  it('devices: list live ones with current, revoke ends the device family at once, others get 404', async () => {
    const h = setup();
    const a = await h.signIn({ uid: 'a', fcmToken: 'f' });
    const b = await h.signIn({ uid: 'b' });
    const callerA = await h.auth.authenticateAccess(a.accessToken);
    const { devices } = await h.auth.listDevices(callerA);
    expect(devices.map((d) => [d.uid, d.current, d.hasPushToken])).toEqual([
      ['a', true, true],
      ['b', false, false],
    ]);
    expect(JSON.stringify(devices)).not.toContain('fcmToken');
    await h.auth.authenticateAccess(b.accessToken);
    expect(await h.auth.revokeDevice(callerA, 'b')).toEqual({ revoked: true });
    expect(await code(h.auth.authenticateAccess(b.accessToken))).toBe('UNAUTHORIZED');
    expect(await code(h.auth.refresh(b.refreshToken, 'b'))).toBe('REFRESH_INVALID');
    expect((await h.auth.listDevices(callerA)).devices.map((d) => d.uid)).toEqual(['a']);
    expect(await code(h.auth.revokeDevice(callerA, 'b'))).toBe('NOT_FOUND');
    expect(await code(h.auth.revokeDevice(callerA, 'unknown'))).toBe('NOT_FOUND');
  });

  it('another process\'s revocation is seen once the session cache entry ages out (a few seconds)', async () => {
    const h = setup();
    const s = await h.signIn({ uid: 'a' });
    await h.auth.authenticateAccess(s.accessToken);
    const sid = [...h.sessions.sessions.keys()].at(-1)!;
    await h.sessions.revokeSession(sid, 'logout', h.clock.now().toISOString());
    h.clock.advanceSeconds(2);
    expect(await code(h.auth.authenticateAccess(s.accessToken))).toBe('UNAUTHORIZED');
  });
});

describe('last seen', () => {
  it("a device's authenticated requests move its lastSeenAt, at most once a minute", async () => {
    const h = setup();
    const s = await h.signIn({ uid: 'phone' });
    const seen = async () => (await h.devices.listActiveDevices(s.user.id)).find((d) => d.uid === 'phone')!.lastSeenAt;
    const signedInAt = await seen();
    h.clock.advanceSeconds(5);
    await h.auth.authenticateAccess(s.accessToken);
    const first = await seen();
    expect(Date.parse(first)).toBe(Date.parse(signedInAt) + 5000);
    h.clock.advanceSeconds(30);
    await h.auth.authenticateAccess(s.accessToken);
    expect(await seen()).toBe(first);
    h.clock.advanceSeconds(31);
    await h.auth.authenticateAccess(s.accessToken);
    expect(Date.parse(await seen())).toBe(Date.parse(first) + 61_000);
  });
});
