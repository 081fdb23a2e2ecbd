import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDomainError, type AuthStore, type NewRefreshToken, type UserStore } from '@calsync/domain';

/** The stores of one adapter under the contract suite. */
export interface AuthStoresUnderTest {
  readonly users: UserStore;
  readonly store: AuthStore;
  close(): Promise<void>;
}

const T0 = '2030-01-01T00:00:00.000Z';
const T1 = '2030-01-01T00:01:00.000Z';
let seq = 0;
const unique = (p: string) => `${p}${Date.now().toString(36)}${(seq++).toString(36)}`;
const phone = () => `+4915${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`;
const token = (sessionId: string, parentHash: string | null = null): NewRefreshToken => ({
  tokenHash: unique('h'),
  sessionId,
  parentHash,
  createdAt: T0,
  expiresAt: '2030-04-01T00:00:00.000Z',
});

/**
 * One contract for every UserStore/AuthStore adapter (in memory, PGlite, PostgreSQL): the same
 * cases, so the fakes cannot drift from the real stores.
 */
export function runAuthStoreContract(name: string, open: () => Promise<AuthStoresUnderTest>): void {
  describe(`auth store contract: ${name}`, () => {
    let s: AuthStoresUnderTest;
    beforeAll(async () => {
      s = await open();
    });
    afterAll(async () => {
      await s.close();
    });
    const newUser = async (name = 'Ann') =>
      (await s.users.createPhoneUser({ phone: phone(), name, now: T0 })).user;

    it('creates a phone user once per phone', async () => {
      const p = phone();
      const first = await s.users.createPhoneUser({ phone: p, name: 'Bo', now: T0 });
      expect(first.created).toBe(true);
      expect(first.user).toMatchObject({ phone: p, name: 'Bo', email: null, role: 'USER', isPhoneVerified: true });
      expect(first.user.notificationSettings).toEqual({ syncNotifications: true, eventReminders: true, conflictAlerts: true });
      const again = await s.users.createPhoneUser({ phone: p, name: 'X', now: T0 });
      expect(again).toMatchObject({ created: false, user: { id: first.user.id } });
    });

    it('concurrent sign-ups of one phone create exactly one user', async () => {
      const p = phone();
      const results = await Promise.all(
        [0, 1, 2, 3].map(() => s.users.createPhoneUser({ phone: p, name: '', now: T0 })),
      );
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.user.id)).size).toBe(1);
    });

    it('finds users by id, phone and case-insensitive e-mail; e-mails are unique ignoring case', async () => {
      const a = await newUser();
      const b = await newUser();
      const email = `${unique('m')}@example.com`;
      await s.users.updateProfile(a.id, { email, passwordHash: 'h1' }, T1);
      expect((await s.users.findByEmail(email.toUpperCase()))?.id).toBe(a.id);
      expect((await s.users.findByPhone(a.phone!))?.id).toBe(a.id);
      expect((await s.users.findById(a.id))?.passwordHash).toBe('h1');
      expect(await s.users.findById(999_999)).toBeNull();
      const err = await s.users.updateProfile(b.id, { email: email.toUpperCase() }, T1).catch((e: unknown) => e);
      expect(isDomainError(err, 'EMAIL_TAKEN')).toBe(true);
      expect(await s.users.updateProfile(999_999, { name: 'x' }, T1)).toBeNull();
    });

    it('updates name and notification settings', async () => {
      const a = await newUser();
      const settings = { syncNotifications: false, eventReminders: true, conflictAlerts: false };
      const u = await s.users.updateProfile(a.id, { name: 'New', notificationSettings: settings }, T1);
      expect(u).toMatchObject({ name: 'New', notificationSettings: settings });
      expect((await s.users.findById(a.id))?.notificationSettings).toEqual(settings);
    });

    it('upserts devices, lists live ones, revokes and revives them', async () => {
      const u = await newUser();
      const d1 = await s.store.upsertDevice(u.id, { uid: 'phone-1', platform: 'ios', name: 'A', fcmToken: 'f1' }, T0);
      expect(d1).toMatchObject({ uid: 'phone-1', platform: 'ios', name: 'A', fcmToken: 'f1', revokedAt: null });
      const d1b = await s.store.upsertDevice(u.id, { uid: 'phone-1', platform: 'android', name: 'B', fcmToken: null }, T1);
      expect(d1b).toMatchObject({ platform: 'android', name: 'B', fcmToken: null });
      expect(Date.parse(d1b.createdAt)).toBe(Date.parse(d1.createdAt));
      await s.store.upsertDevice(u.id, { uid: 'phone-2' }, T1);
      expect((await s.store.listActiveDevices(u.id)).map((d) => d.uid).sort()).toEqual(['phone-1', 'phone-2']);
      expect(await s.store.revokeDevice(u.id, 'phone-1', T1)).toBe(true);
      expect(await s.store.revokeDevice(u.id, 'phone-1', T1)).toBe(false);
      expect(await s.store.revokeDevice(u.id, 'nope', T1)).toBe(false);
      const other = await newUser();
      expect(await s.store.revokeDevice(other.id, 'phone-2', T1)).toBe(false);
      expect((await s.store.listActiveDevices(u.id)).map((d) => d.uid)).toEqual(['phone-2']);
      await s.store.upsertDevice(u.id, { uid: 'phone-1' }, T1);
      expect((await s.store.listActiveDevices(u.id)).map((d) => d.uid).sort()).toEqual(['phone-1', 'phone-2']);
    });

    it('clears an fcmToken only while it is still the given token', async () => {
      const u = await newUser();
      await s.store.upsertDevice(u.id, { uid: 'p', fcmToken: 'old' }, T0);
      await s.store.upsertDevice(u.id, { uid: 'q', fcmToken: 'old' }, T0);
      await s.store.upsertDevice(u.id, { uid: 'p', fcmToken: 'new' }, T1);
      await s.store.clearFcmToken(u.id, 'p', 'old');
      const tokenOf = async (uid: string) => (await s.store.listActiveDevices(u.id)).find((d) => d.uid === uid)?.fcmToken;
      expect(await tokenOf('p')).toBe('new');
      await s.store.clearFcmToken(u.id, 'p', 'new');
      expect(await tokenOf('p')).toBeNull();
      expect(await tokenOf('q')).toBe('old');
    });

    it('a new family supersedes the same device (or legacy) family only; device revoke ends its families', async () => {
      const u = await newUser();
      await s.store.upsertDevice(u.id, { uid: 'a' }, T0);
      await s.store.upsertDevice(u.id, { uid: 'b' }, T0);
      const ids = { a1: unique('s'), a2: unique('s'), b1: unique('s'), l1: unique('s'), l2: unique('s') };
      await s.store.startSession({ id: ids.a1, userId: u.id, deviceUid: 'a', createdAt: T0 }, token(ids.a1));
      await s.store.startSession({ id: ids.b1, userId: u.id, deviceUid: 'b', createdAt: T0 }, token(ids.b1));
      await s.store.startSession({ id: ids.l1, userId: u.id, deviceUid: null, createdAt: T0 }, token(ids.l1));
      await s.store.startSession({ id: ids.a2, userId: u.id, deviceUid: 'a', createdAt: T1 }, token(ids.a2));
      await s.store.startSession({ id: ids.l2, userId: u.id, deviceUid: null, createdAt: T1 }, token(ids.l2));
      const live = async (id: string) => (await s.store.findSession(id))?.revokedAt === null;
      expect(await live(ids.a1)).toBe(false);
      expect(await live(ids.l1)).toBe(false);
      expect(await live(ids.a2)).toBe(true);
      expect(await live(ids.b1)).toBe(true);
      expect(await live(ids.l2)).toBe(true);
      expect(await s.store.findSession(ids.a2)).toMatchObject({ userId: u.id, deviceUid: 'a' });
      expect(await s.store.findSession(ids.l2)).toMatchObject({ deviceUid: null });
      await s.store.revokeDevice(u.id, 'b', T1);
      expect(await live(ids.b1)).toBe(false);
      await s.store.revokeSession(ids.a2, 'logout', T1);
      expect(await live(ids.a2)).toBe(false);
      expect(await s.store.findSession('unknown-session')).toBeNull();
    });

    it('rotates a refresh token once: of concurrent rotations exactly one wins', async () => {
      const u = await newUser();
      const sid = unique('s');
      const first = token(sid);
      await s.store.startSession({ id: sid, userId: u.id, deviceUid: null, createdAt: T0 }, first);
      expect(await s.store.findRefreshToken(first.tokenHash)).toMatchObject({ sessionId: sid, replacedAt: null, parentHash: null });
      const children = [0, 1, 2, 3, 4].map(() => token(sid, first.tokenHash));
      const wins = await Promise.all(children.map((c) => s.store.rotateRefreshToken(first.tokenHash, c, T1)));
      expect(wins.filter(Boolean)).toHaveLength(1);
      const winner = children[wins.indexOf(true)]!;
      expect(await s.store.findRefreshToken(winner.tokenHash)).toMatchObject({ parentHash: first.tokenHash, replacedAt: null });
      expect((await s.store.findRefreshToken(first.tokenHash))?.replacedAt).not.toBeNull();
      for (const c of children.filter((_, i) => !wins[i])) expect(await s.store.findRefreshToken(c.tokenHash)).toBeNull();
      expect(await s.store.findRefreshToken('unknown')).toBeNull();
    });

    it('keeps one code per phone, counts tries atomically and lets exactly one consumer in', async () => {
      const p = phone();
      const otp = { phone: p, codeHmac: 'aa', name: 'N', createdAt: T0, expiresAt: T1, attempts: 0, consumedAt: null };
      await s.store.saveOtp(otp);
      expect(await s.store.findOtp(p)).toMatchObject({ codeHmac: 'aa', name: 'N', attempts: 0, consumedAt: null });
      await s.store.saveOtp({ ...otp, codeHmac: 'bb' });
      expect((await s.store.findOtp(p))?.codeHmac).toBe('bb');
      expect(await s.store.incrementOtpAttempts(p, 'aa')).toBeNull();
      const counts = await Promise.all([1, 2, 3].map(() => s.store.incrementOtpAttempts(p, 'bb')));
      expect(counts.slice().sort()).toEqual([1, 2, 3]);
      expect(await s.store.consumeOtp(p, 'bb', T0, 3)).toBe(false);
      await s.store.saveOtp({ ...otp, codeHmac: 'cc' });
      expect(await s.store.consumeOtp(p, 'cc', T1, 5)).toBe(false);
      const wins = await Promise.all([0, 1, 2, 3].map(() => s.store.consumeOtp(p, 'cc', T0, 5)));
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect((await s.store.findOtp(p))?.consumedAt).not.toBeNull();
      await s.store.deleteOtp(p);
      expect(await s.store.findOtp(p)).toBeNull();
    });

    it('lists sends of a phone since a time, oldest first', async () => {
      const p = phone();
      await s.store.recordOtpSend(p, T1);
      await s.store.recordOtpSend(p, T0);
      await s.store.recordOtpSend(phone(), T1);
      expect((await s.store.listOtpSendsSince(p, T0)).map((t) => Date.parse(t))).toEqual([Date.parse(T0), Date.parse(T1)]);
      expect(await s.store.listOtpSendsSince(p, '2030-01-01T00:00:30.000Z')).toHaveLength(1);
    });
  });
}
