import { describe, expect, it } from 'vitest';
import { AuthFixtures, openForSuite, T0, T1, type OpenAuthStores } from './auth-contract-fixtures.js';

/** The `SessionStore` guarantees (ports/session-store.ts), the same cases for every adapter. */
export function runSessionStoreContract(name: string, open: OpenAuthStores): void {
  describe(`session store contract: ${name}`, () => {
    const stores = openForSuite(open);
    const f = new AuthFixtures(3);

    it('a new family supersedes the same device (or legacy) family only; a logout ends one family', async () => {
      const { users, devices, sessions } = stores();
      const u = await f.newUser(users);
      await devices.upsertDevice(u.id, { uid: 'a' }, T0);
      await devices.upsertDevice(u.id, { uid: 'b' }, T0);
      const ids = { a1: f.unique('s'), a2: f.unique('s'), b1: f.unique('s'), l1: f.unique('s'), l2: f.unique('s') };
      await sessions.startSession({ id: ids.a1, userId: u.id, deviceUid: 'a', createdAt: T0 }, f.token(ids.a1));
      await sessions.startSession({ id: ids.b1, userId: u.id, deviceUid: 'b', createdAt: T0 }, f.token(ids.b1));
      await sessions.startSession({ id: ids.l1, userId: u.id, deviceUid: null, createdAt: T0 }, f.token(ids.l1));
      await sessions.startSession({ id: ids.a2, userId: u.id, deviceUid: 'a', createdAt: T1 }, f.token(ids.a2));
      await sessions.startSession({ id: ids.l2, userId: u.id, deviceUid: null, createdAt: T1 }, f.token(ids.l2));
      const live = async (id: string) => (await sessions.findSession(id))?.revokedAt === null;
      expect(await live(ids.a1)).toBe(false);
      expect(await live(ids.l1)).toBe(false);
      expect(await live(ids.a2)).toBe(true);
      expect(await live(ids.b1)).toBe(true);
      expect(await live(ids.l2)).toBe(true);
      expect(await sessions.findSession(ids.a2)).toMatchObject({ userId: u.id, deviceUid: 'a' });
      expect(await sessions.findSession(ids.l2)).toMatchObject({ deviceUid: null });
      await sessions.revokeSession(ids.a2, 'logout', T1);
      expect(await live(ids.a2)).toBe(false);
      expect(await live(ids.b1)).toBe(true);
      expect(await sessions.findSession('unknown-session')).toBeNull();
    });

    it('an ended family stays ended', async () => {
      const { users, sessions } = stores();
      const u = await f.newUser(users);
      const sid = f.unique('s');
      await sessions.startSession({ id: sid, userId: u.id, deviceUid: null, createdAt: T0 }, f.token(sid));
      await sessions.revokeSession(sid, 'logout', T0);
      await sessions.revokeSession(sid, 'replay', T1);
      expect(Date.parse((await sessions.findSession(sid))!.revokedAt!)).toBe(Date.parse(T0));
    });

    it('rotates a refresh token once: of concurrent rotations exactly one wins', async () => {
      const { users, sessions } = stores();
      const u = await f.newUser(users);
      const sid = f.unique('s');
      const first = f.token(sid);
      await sessions.startSession({ id: sid, userId: u.id, deviceUid: null, createdAt: T0 }, first);
      expect(await sessions.findRefreshToken(first.tokenHash)).toMatchObject({ sessionId: sid, replacedAt: null, parentHash: null });
      const children = [0, 1, 2, 3, 4].map(() => f.token(sid, first.tokenHash));
      const wins = await Promise.all(children.map((c) => sessions.rotateRefreshToken(first.tokenHash, c, T1)));
      expect(wins.filter(Boolean)).toHaveLength(1);
      const winner = children[wins.indexOf(true)]!;
      expect(await sessions.findRefreshToken(winner.tokenHash)).toMatchObject({ parentHash: first.tokenHash, replacedAt: null });
      expect((await sessions.findRefreshToken(first.tokenHash))?.replacedAt).not.toBeNull();
      for (const c of children.filter((_, i) => !wins[i])) expect(await sessions.findRefreshToken(c.tokenHash)).toBeNull();
      expect(await sessions.findRefreshToken('unknown')).toBeNull();
      expect(await sessions.rotateRefreshToken('unknown', f.token(sid, 'unknown'), T1)).toBe(false);
    });
  });
}
