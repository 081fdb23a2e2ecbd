import { describe, expect, it } from 'vitest';
import { AuthFixtures, openForSuite, T0, T1, type OpenAuthStores } from './auth-contract-fixtures.js';

/** The `DeviceStore` guarantees (ports/device-store.ts), the same cases for every adapter. */
export function runDeviceStoreContract(name: string, open: OpenAuthStores): void {
  describe(`device store contract: ${name}`, () => {
    const stores = openForSuite(open);
    const f = new AuthFixtures(2);

    it('upserts devices, lists live ones, revokes and revives them', async () => {
      const { users, devices } = stores();
      const u = await f.newUser(users);
      const d1 = await devices.upsertDevice(u.id, { uid: 'phone-1', platform: 'ios', name: 'A', fcmToken: 'f1' }, T0);
      expect(d1).toMatchObject({ uid: 'phone-1', platform: 'ios', name: 'A', fcmToken: 'f1', revokedAt: null });
      const d1b = await devices.upsertDevice(u.id, { uid: 'phone-1', platform: 'android', name: 'B', fcmToken: null }, T1);
      expect(d1b).toMatchObject({ platform: 'android', name: 'B', fcmToken: null });
      expect(Date.parse(d1b.createdAt)).toBe(Date.parse(d1.createdAt));
      await devices.upsertDevice(u.id, { uid: 'phone-2' }, T1);
      expect((await devices.listActiveDevices(u.id)).map((d) => d.uid).sort()).toEqual(['phone-1', 'phone-2']);
      expect(await devices.revokeDevice(u.id, 'phone-1', T1)).toBe(true);
      expect(await devices.revokeDevice(u.id, 'phone-1', T1)).toBe(false);
      expect(await devices.revokeDevice(u.id, 'nope', T1)).toBe(false);
      const other = await f.newUser(users);
      expect(await devices.revokeDevice(other.id, 'phone-2', T1)).toBe(false);
      expect((await devices.listActiveDevices(u.id)).map((d) => d.uid)).toEqual(['phone-2']);
      await devices.upsertDevice(u.id, { uid: 'phone-1' }, T1);
      expect((await devices.listActiveDevices(u.id)).map((d) => d.uid).sort()).toEqual(['phone-1', 'phone-2']);
    });

    it('finds a device by its app password hash while it is live; revoking ends the password for good', async () => {
      const { users, devices } = stores();
      const u = await f.newUser(users);
      const other = await f.newUser(users);
      await devices.upsertDevice(u.id, { uid: 'caldav-1', platform: 'caldav', name: 'Thunderbird' }, T0);
      await devices.upsertDevice(other.id, { uid: 'caldav-1', platform: 'caldav', name: 'DAVx5' }, T0);
      await devices.setAppPassword(u.id, 'caldav-1', 'a'.repeat(64));
      await devices.setAppPassword(other.id, 'caldav-1', 'b'.repeat(64));
      expect(await devices.findByAppPassword('a'.repeat(64))).toMatchObject({ userId: u.id, uid: 'caldav-1', name: 'Thunderbird' });
      expect(await devices.findByAppPassword('b'.repeat(64))).toMatchObject({ userId: other.id, name: 'DAVx5' });
      expect(await devices.findByAppPassword('c'.repeat(64))).toBeNull();
      expect(await devices.revokeDevice(u.id, 'caldav-1', T1)).toBe(true);
      expect(await devices.findByAppPassword('a'.repeat(64))).toBeNull();
      // Signing the same device uid in again does not bring the password back.
      await devices.upsertDevice(u.id, { uid: 'caldav-1' }, T1);
      expect(await devices.findByAppPassword('a'.repeat(64))).toBeNull();
      expect(await devices.findByAppPassword('b'.repeat(64))).toMatchObject({ userId: other.id });
    });

    it('touching a device moves its lastSeenAt only', async () => {
      const { users, devices } = stores();
      const u = await f.newUser(users);
      await devices.upsertDevice(u.id, { uid: 'seen', name: 'S', fcmToken: 'tok' }, T0);
      await devices.touchDevice(u.id, 'seen', T1);
      const [d] = await devices.listActiveDevices(u.id);
      expect(Date.parse(d!.lastSeenAt)).toBe(Date.parse(T1));
      expect(Date.parse(d!.createdAt)).toBe(Date.parse(T0));
      expect(d).toMatchObject({ uid: 'seen', name: 'S', fcmToken: 'tok' });
    });

    it('renames a live device of the user only', async () => {
      const { users, devices } = stores();
      const u = await f.newUser(users);
      const other = await f.newUser(users);
      await devices.upsertDevice(u.id, { uid: 'named', platform: 'web', name: 'Chrome on Android', fcmToken: 'tok' }, T0);
      await devices.upsertDevice(u.id, { uid: 'gone', name: 'Old' }, T0);
      await devices.revokeDevice(u.id, 'gone', T1);
      expect(await devices.renameDevice(u.id, 'named', 'Work phone')).toMatchObject({ uid: 'named', name: 'Work phone', platform: 'web', fcmToken: 'tok' });
      expect((await devices.listActiveDevices(u.id)).map((d) => d.name)).toEqual(['Work phone']);
      expect(await devices.renameDevice(u.id, 'gone', 'Back')).toBeNull();
      expect(await devices.renameDevice(other.id, 'named', 'Theirs')).toBeNull();
      expect(await devices.renameDevice(u.id, 'missing', 'X')).toBeNull();
    });

    it('clears an fcmToken only while it is still the given token', async () => {
      const { users, devices } = stores();
      const u = await f.newUser(users);
      await devices.upsertDevice(u.id, { uid: 'p', fcmToken: 'old' }, T0);
      await devices.upsertDevice(u.id, { uid: 'q', fcmToken: 'old' }, T0);
      await devices.upsertDevice(u.id, { uid: 'p', fcmToken: 'new' }, T1);
      await devices.clearFcmToken(u.id, 'p', 'old');
      const tokenOf = async (uid: string) => (await devices.listActiveDevices(u.id)).find((d) => d.uid === uid)?.fcmToken;
      expect(await tokenOf('p')).toBe('new');
      await devices.clearFcmToken(u.id, 'p', 'new');
      expect(await tokenOf('p')).toBeNull();
      expect(await tokenOf('q')).toBe('old');
    });

    it('revoking a device ends its live families, and only its own', async () => {
      const { users, devices, sessions } = stores();
      const u = await f.newUser(users);
      await devices.upsertDevice(u.id, { uid: 'a' }, T0);
      await devices.upsertDevice(u.id, { uid: 'b' }, T0);
      const [a, b, legacy] = [f.unique('s'), f.unique('s'), f.unique('s')];
      await sessions.startSession({ id: a, userId: u.id, deviceUid: 'a', createdAt: T0 }, f.token(a));
      await sessions.startSession({ id: b, userId: u.id, deviceUid: 'b', createdAt: T0 }, f.token(b));
      await sessions.startSession({ id: legacy, userId: u.id, deviceUid: null, createdAt: T0 }, f.token(legacy));
      expect(await devices.revokeDevice(u.id, 'b', T1)).toBe(true);
      const live = async (id: string) => (await sessions.findSession(id))?.revokedAt === null;
      expect(await live(b)).toBe(false);
      expect(await live(a)).toBe(true);
      expect(await live(legacy)).toBe(true);
    });
  });
}
