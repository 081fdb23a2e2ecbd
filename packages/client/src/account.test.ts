import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, MemoryStore } from './index.js';
import { clientOf, signIn, startInMemoryService, type InMemoryService } from '../test-support/index.js';

// client.devices and client.profile against the real routes (the in-memory service runs the real
// Fastify app): typed answers, the error envelope as ApiError, an expired token refreshed once.

let service: InMemoryService;
beforeEach(async () => {
  service = await startInMemoryService();
});
afterEach(async () => {
  await service.close();
});

const named = (uid: string) => ({ device: { uid, platform: 'test', name: `device ${uid}` } });

describe('client.devices', () => {
  it('lists the devices of the account, this one marked current, and revokes another one', async () => {
    const a = await clientOf(service, named('laptop'));
    const b = await clientOf(service, named('phone'));
    await signIn(service, a, '+15550004001');
    await signIn(service, b, '+15550004001');
    const listed = await a.devices.list();
    expect(listed.map((d) => [d.uid, d.platform, d.name, d.current]).sort()).toEqual([
      ['laptop', 'test', 'device laptop', true],
      ['phone', 'test', 'device phone', false],
    ]);
    expect(listed[0]).toEqual(expect.objectContaining({ hasPushToken: false, createdAt: expect.any(String), lastSeenAt: expect.any(String) }));

    await a.devices.revoke('phone');
    expect((await a.devices.list()).map((d) => d.uid)).toEqual(['laptop']);
    // The revoked device learns it at its next request: signed out, its data kept for a new sign-in.
    await b.tasks.put({ title: 'written after the revoke' });
    await expect(b.sync()).rejects.toMatchObject({ kind: 'signed-out' });
    expect(b.status.signedIn).toBe(false);
    expect(b.tasks.list()).toHaveLength(1);
    expect(a.status.signedIn).toBe(true);
  });

  it('renames a device for every device of the account; an empty name is a VALIDATION_ERROR, an unknown device NOT_FOUND', async () => {
    const a = await clientOf(service, named('laptop'));
    const b = await clientOf(service, named('phone'));
    await signIn(service, a, '+15550004003');
    await signIn(service, b, '+15550004003');
    expect(await a.devices.rename('phone', 'Work phone')).toMatchObject({ uid: 'phone', name: 'Work phone', current: false });
    expect((await b.devices.list()).find((d) => d.uid === 'phone')).toMatchObject({ name: 'Work phone', current: true });
    await expect(a.devices.rename('phone', '')).rejects.toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    await expect(a.devices.rename('no-such-device', 'X')).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('an unknown uid is a typed NOT_FOUND; revoking this device signs it out and empties its store', async () => {
    const store = new MemoryStore();
    const a = await clientOf(service, { store });
    await signIn(service, a, '+15550004002');
    const error = await a.devices.revoke('no-such-device').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ kind: 'rejected', status: 404, code: 'NOT_FOUND' });

    const [own] = await a.devices.list();
    const token = a.auth.accessToken()!;
    await a.devices.revoke(own!.uid);
    expect(a.status.signedIn).toBe(false);
    expect(await store.load()).toEqual({ records: [], outbox: [], meta: {} });
    expect((await service.fetch('http://calsync.test/api/auth/devices', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });

  it('an expired access token is refreshed once and the request repeated', async () => {
    const a = await clientOf(service);
    await signIn(service, a, '+15550004003');
    const before = a.auth.accessToken();
    service.clock.advanceSeconds(16 * 60);
    expect(await a.devices.list()).toHaveLength(1);
    expect(a.auth.accessToken()).not.toBe(before);
  });

  it('needs a sign-in', async () => {
    const a = await clientOf(service);
    await expect(a.devices.list()).rejects.toMatchObject({ kind: 'signed-out', code: 'UNAUTHORIZED' });
  });
});

describe('client.profile', () => {
  it('reads and changes the profile, keeps auth.user() in step, and the new e-mail and password sign in', async () => {
    const a = await clientOf(service);
    await signIn(service, a, '+15550004004');
    expect(await a.profile.get()).toMatchObject({ phone: '+15550004004', email: null });
    const user = await a.profile.update({ name: 'Ada', email: 'ada@example.com', password: 'correct horse', notificationSettings: { conflictAlerts: false } });
    expect(user).toMatchObject({ name: 'Ada', email: 'ada@example.com', notificationSettings: { conflictAlerts: false, syncNotifications: true } });
    expect(a.auth.user()).toEqual(user);

    const other = await clientOf(service);
    await other.auth.login('ada@example.com', 'correct horse');
    expect(other.auth.user()?.id).toBe(user.id);

    const c = await clientOf(service);
    await signIn(service, c, '+15550004005');
    await expect(c.profile.update({ email: 'ADA@example.com' })).rejects.toMatchObject({ kind: 'rejected', status: 409, code: 'EMAIL_TAKEN' });
    await expect(c.profile.update({ password: 'short' })).rejects.toMatchObject({ kind: 'rejected', status: 400 });
  });
});
