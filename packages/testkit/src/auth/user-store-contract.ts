import { describe, expect, it } from 'vitest';
import { isDomainError } from '@calsync/domain';
import { AuthFixtures, openForSuite, T0, T1, type OpenAuthStores } from './auth-contract-fixtures.js';

/** The `UserStore` guarantees (ports/user-store.ts), the same cases for every adapter. */
export function runUserStoreContract(name: string, open: OpenAuthStores): void {
  describe(`user store contract: ${name}`, () => {
    const stores = openForSuite(open);
    const f = new AuthFixtures(1);

    it('creates a phone user once per phone', async () => {
      const { users } = stores();
      const p = f.phone();
      const first = await users.createPhoneUser({ phone: p, name: 'Bo', now: T0 });
      expect(first.created).toBe(true);
      expect(first.user).toMatchObject({ phone: p, name: 'Bo', email: null, role: 'USER', isPhoneVerified: true, signUpPending: true });
      expect(first.user.notificationSettings).toEqual({ syncNotifications: true, eventReminders: true, conflictAlerts: true });
      const again = await users.createPhoneUser({ phone: p, name: 'X', now: T0 });
      expect(again).toMatchObject({ created: false, user: { id: first.user.id } });
    });

    it('keeps a sign-up pending until it is completed', async () => {
      const { users } = stores();
      const { user } = await users.createPhoneUser({ phone: f.phone(), name: 'Cy', now: T0 });
      expect((await users.findById(user.id))?.signUpPending).toBe(true);
      await users.completeSignUp(user.id);
      expect((await users.findById(user.id))?.signUpPending).toBe(false);
      expect((await users.createPhoneUser({ phone: user.phone!, name: 'Cy', now: T1 })).user.signUpPending).toBe(false);
    });

    it('concurrent sign-ups of one phone create exactly one user', async () => {
      const { users } = stores();
      const p = f.phone();
      const results = await Promise.all([0, 1, 2, 3].map(() => users.createPhoneUser({ phone: p, name: '', now: T0 })));
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.user.id)).size).toBe(1);
    });

    it('finds users by id, phone and case-insensitive e-mail; e-mails are unique ignoring case', async () => {
      const { users } = stores();
      const a = await f.newUser(users);
      const b = await f.newUser(users);
      const email = `${f.unique('m')}@example.com`;
      await users.updateProfile(a.id, { email, passwordHash: 'h1' }, T1);
      expect((await users.findByEmail(email.toUpperCase()))?.id).toBe(a.id);
      expect((await users.findByPhone(a.phone!))?.id).toBe(a.id);
      expect((await users.findById(a.id))?.passwordHash).toBe('h1');
      expect(await users.findById(999_999)).toBeNull();
      expect((await users.findByIds([b.id, 999_999, a.id, a.id])).map((u) => [u.id, u.passwordHash]).sort()).toEqual([[a.id, 'h1'], [b.id, null]].sort());
      expect(await users.findByIds([])).toEqual([]);
      const err = await users.updateProfile(b.id, { email: email.toUpperCase() }, T1).catch((e: unknown) => e);
      expect(isDomainError(err, 'EMAIL_TAKEN')).toBe(true);
      expect(await users.updateProfile(999_999, { name: 'x' }, T1)).toBeNull();
    });

    it('updates name and notification settings', async () => {
      const { users } = stores();
      const a = await f.newUser(users);
      const settings = { syncNotifications: false, eventReminders: true, conflictAlerts: false };
      const u = await users.updateProfile(a.id, { name: 'New', notificationSettings: settings }, T1);
      expect(u).toMatchObject({ name: 'New', notificationSettings: settings });
      expect((await users.findById(a.id))?.notificationSettings).toEqual(settings);
    });
  });
}
