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
import { createSignUpCalendar } from '../sync/sign-up-calendar.js';
import { SyncService } from '../sync/sync-service.js';
import { AuthService } from './auth-service.js';

function setup(overrides: Partial<{ sessionCacheSeconds: number }> = {}) {
  const { users, devices, sessions, otps } = inMemoryAuthStores();
  const records = new InMemorySyncStore();
  const sync = new SyncService({ store: records, clock: new FixedClock(), cursorCodec: new CursorCodec('k') });
  const sms = new CapturingSmsSender();
  const clock = new ManualAuthClock();
  const auth = new AuthService(
    { users, devices, sessions, otps, sync, sms, hasher: new CheapPasswordHasher(), tokens: new FakeTokenSigner(), clock, random: new SeededRandom(11) },
    {
      accessTtlSeconds: 900,
      refreshTtlSeconds: 90 * 86400,
      sessionCacheSeconds: overrides.sessionCacheSeconds ?? 2,
      otp: { ttlSeconds: 300, maxAttempts: 5, resendSeconds: 60, maxSendsPerHour: 5, smsMaxPerHour: 1000, smsMaxPerIpPerHour: 10, hmacKey: 'otp-key' },
    },
  );
  return { auth, users, records, sync, otps, sms, clock };
}

async function rejectsWith(p: Promise<unknown>, code: ErrorCode): Promise<number | undefined> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  if (!isDomainError(e, code)) throw new Error(`expected ${code}, got ${String(e)}`);
  return e.retryAfterSeconds;
}

const PHONE = '+491701234567';
const wrongOf = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

async function signIn(h: ReturnType<typeof setup>, device?: { uid: string }) {
  await h.auth.sendOtp(PHONE, 'Ann');
  h.clock.advanceSeconds(61);
  return h.auth.verifyOtp(PHONE, h.sms.lastCode(PHONE), device);
}

describe('AuthService: one-time codes', () => {
  it('sends a 6-digit code, stores only its HMAC, and a new phone gets a user and "Personal"', async () => {
    const h = setup();
    expect(await h.auth.sendOtp(PHONE, 'Ann')).toEqual({ expiresInSeconds: 300, resendAfterSeconds: 60 });
    const code = h.sms.lastCode(PHONE);
    expect(code).toMatch(/^\d{6}$/);
    expect(JSON.stringify([...h.otps.otps.values()])).not.toContain(code);
    const r = await h.auth.verifyOtp(PHONE, code);
    expect(r.isNewUser).toBe(true);
    expect(r.user).toMatchObject({ name: 'Ann', phone: PHONE, email: null, role: 'USER', isPhoneVerified: true });
    const calendars = h.records.snapshotRows(r.user.id, 'calendars');
    expect(calendars.map((c) => [c.fields.name, c.fields.isDefault, c.version])).toEqual([['Personal', true, 1n]]);
    expect(r.device).toBeUndefined();
  });

  it('the sign-up calendar is made through the push path: a retried or racing creation keeps one default', async () => {
    const h = setup();
    const r = await signIn(h);
    await Promise.all([createSignUpCalendar(h.sync, r.user.id, 'retry-1'), createSignUpCalendar(h.sync, r.user.id, 'retry-2')]);
    const calendars = h.records.snapshotRows(r.user.id, 'calendars');
    expect(calendars.map((c) => [c.fields.name, c.fields.isDefault, c.deleted])).toEqual([['Personal', true, null]]);
    const pulled = await h.sync.pull(r.user.id, {});
    expect(pulled.calendars).toEqual([expect.objectContaining({ uid: calendars[0]!.uid, name: 'Personal', isDefault: true, version: '1' })]);
  });

  it('refuses a non-E.164 phone', async () => {
    await rejectsWith(setup().auth.sendOtp('0170123', undefined), 'VALIDATION_ERROR');
  });

  it('a known phone signs in again without a new user or calendar', async () => {
    const h = setup();
    const first = await signIn(h);
    h.clock.advanceSeconds(61);
    const again = await signIn(h);
    expect(again.isNewUser).toBe(false);
    expect(again.user.id).toBe(first.user.id);
    expect(h.records.snapshotRows(first.user.id, 'calendars')).toHaveLength(1);
  });

  it('a code is single use', async () => {
    const h = setup();
    await h.auth.sendOtp(PHONE);
    const code = h.sms.lastCode(PHONE);
    await h.auth.verifyOtp(PHONE, code);
    await rejectsWith(h.auth.verifyOtp(PHONE, code), 'OTP_EXPIRED');
  });

  it('parallel verifies of one correct code let exactly one in', async () => {
    const h = setup();
    await h.auth.sendOtp(PHONE);
    const code = h.sms.lastCode(PHONE);
    const results = await Promise.allSettled([0, 1, 2, 3, 4].map(() => h.auth.verifyOtp(PHONE, code)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(isDomainError(r.reason, 'OTP_EXPIRED')).toBe(true);
  });

  it('a code expires after its TTL', async () => {
    const h = setup();
    await h.auth.sendOtp(PHONE);
    h.clock.advanceSeconds(300);
    await rejectsWith(h.auth.verifyOtp(PHONE, h.sms.lastCode(PHONE)), 'OTP_EXPIRED');
  });

  it('no code at all answers OTP_EXPIRED', async () => {
    await rejectsWith(setup().auth.verifyOtp(PHONE, '123456'), 'OTP_EXPIRED');
  });

  it('the fifth wrong code answers OTP_INVALID and kills the code; later tries get 429 until a new send', async () => {
    const h = setup();
    await h.auth.sendOtp(PHONE);
    const code = h.sms.lastCode(PHONE);
    for (let i = 0; i < 5; i++) await rejectsWith(h.auth.verifyOtp(PHONE, wrongOf(code)), 'OTP_INVALID');
    const retry = await rejectsWith(h.auth.verifyOtp(PHONE, code), 'OTP_ATTEMPTS_EXCEEDED');
    expect(retry).toBeGreaterThan(0);
    h.clock.advanceSeconds(60);
    await h.auth.sendOtp(PHONE);
    await expect(h.auth.verifyOtp(PHONE, h.sms.lastCode(PHONE))).resolves.toMatchObject({ isNewUser: true });
  });

  it('a resend within the cooldown is refused with Retry-After; a replaced code is just a wrong code', async () => {
    const h = setup();
    await h.auth.sendOtp(PHONE);
    const old = h.sms.lastCode(PHONE);
    h.clock.advanceSeconds(30);
    expect(await rejectsWith(h.auth.sendOtp(PHONE), 'OTP_RESEND_TOO_SOON')).toBe(30);
    h.clock.advanceSeconds(30);
    await h.auth.sendOtp(PHONE);
    const fresh = h.sms.lastCode(PHONE);
    if (fresh !== old) await rejectsWith(h.auth.verifyOtp(PHONE, old), 'OTP_INVALID');
    await expect(h.auth.verifyOtp(PHONE, fresh)).resolves.toBeDefined();
  });

  it('caps sends per phone per hour with RATE_LIMITED', async () => {
    const h = setup();
    for (let i = 0; i < 5; i++) {
      await h.auth.sendOtp(PHONE);
      h.clock.advanceSeconds(61);
    }
    const retry = await rejectsWith(h.auth.sendOtp(PHONE), 'RATE_LIMITED');
    expect(retry).toBe(3600 - 5 * 61);
    await h.auth.sendOtp('+491709999999');
    h.clock.advanceSeconds(retry!);
    await expect(h.auth.sendOtp(PHONE)).resolves.toBeDefined();
  });

  it('a gateway failure answers SMS_FAILED and leaves no usable code (old or new)', async () => {
    const h = setup();
    await h.auth.sendOtp(PHONE);
    const old = h.sms.lastCode(PHONE);
    h.clock.advanceSeconds(61);
    h.sms.failing = true;
    await rejectsWith(h.auth.sendOtp(PHONE), 'SMS_FAILED');
    expect(h.otps.otps.size).toBe(0);
    await rejectsWith(h.auth.verifyOtp(PHONE, old), 'OTP_EXPIRED');
  });
});

describe('AuthService: e-mail and password', () => {
  async function withPassword() {
    const h = setup();
    const { accessToken } = await signIn(h);
    const caller = await h.auth.authenticateAccess(accessToken);
    await h.auth.updateProfile(caller, { email: 'Ann@Example.com', password: 'correct horse' });
    return { h, caller };
  }

  it('PATCH /me sets e-mail and password (hashed); login then works case-insensitively', async () => {
    const { h, caller } = await withPassword();
    const stored = await h.users.findById(caller.userId);
    expect(stored?.email).toBe('ann@example.com');
    expect(stored?.passwordHash).not.toContain('correct horse');
    const r = await h.auth.login('ANN@example.com', 'correct horse', { uid: 'laptop' });
    expect(r).toMatchObject({ isNewUser: false, user: { id: caller.userId, email: 'ann@example.com' } });
    expect(r.device).toMatchObject({ uid: 'laptop', current: true, hasPushToken: false });
  });

  it('unknown e-mail, wrong password and over-long password give the same INVALID_CREDENTIALS', async () => {
    const { h } = await withPassword();
    const codes = await Promise.all(
      [
        h.auth.login('nobody@example.com', 'correct horse'),
        h.auth.login('ann@example.com', 'wrong horse'),
        h.auth.login('ann@example.com', 'x'.repeat(129)),
      ].map((p) => p.then(() => 'ok', (e: unknown) => (isDomainError(e) ? `${e.code}:${e.message}` : 'other'))),
    );
    expect(new Set(codes)).toEqual(new Set(['INVALID_CREDENTIALS:e-mail or password is wrong']));
  });

  it('a password is never truncated: one differing after 72 characters is wrong', async () => {
    const h = setup();
    const { accessToken } = await signIn(h);
    const caller = await h.auth.authenticateAccess(accessToken);
    const long = 'p'.repeat(100);
    await h.auth.updateProfile(caller, { email: 'l@example.com', password: long });
    await rejectsWith(h.auth.login('l@example.com', `${'p'.repeat(99)}q`), 'INVALID_CREDENTIALS');
    await expect(h.auth.login('l@example.com', long)).resolves.toBeDefined();
  });

  it('validates profile input and merges notification settings key by key', async () => {
    const { h, caller } = await withPassword();
    await rejectsWith(h.auth.updateProfile(caller, { password: 'short' }), 'VALIDATION_ERROR');
    await rejectsWith(h.auth.updateProfile(caller, { password: 'x'.repeat(129) }), 'VALIDATION_ERROR');
    await rejectsWith(h.auth.updateProfile(caller, { email: 'not-an-email' }), 'VALIDATION_ERROR');
    const { user } = await h.auth.updateProfile(caller, { name: 'Bo', notificationSettings: { eventReminders: false } });
    expect(user).toMatchObject({ name: 'Bo', notificationSettings: { syncNotifications: true, eventReminders: false, conflictAlerts: true } });
    expect(JSON.stringify(user)).not.toContain('passwordHash');
  });

  it('an e-mail used by another user answers EMAIL_TAKEN', async () => {
    const { h } = await withPassword();
    h.users.insert({ phone: '+491700000001' });
    await h.auth.sendOtp('+491700000001');
    const other = await h.auth.verifyOtp('+491700000001', h.sms.lastCode('+491700000001'));
    const caller = await h.auth.authenticateAccess(other.accessToken);
    await rejectsWith(h.auth.updateProfile(caller, { email: 'ANN@example.com' }), 'EMAIL_TAKEN');
  });
});
