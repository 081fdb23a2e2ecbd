import { build, type TestApp } from '@calsync/http-fastify/test-support';
import { FakeTokenSigner, cryptoRandom, until, type CapturingSmsSender, type InMemorySyncStore } from '@calsync/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createSyncClient, MemoryStore, type SyncClient } from '../index.js';
import { notificationStreamTrigger } from './notification-stream.js';

// The SDK's stream listener against the real app listening on a loopback port (in-memory stores,
// the store's in-process change feed): a change made by one client reaches another through the
// stream alone (its periodic timer is an hour).

let app: TestApp['app'] | null = null;
const clients: SyncClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await app?.close();
  app = null;
});

async function serve(): Promise<{ base: string; sms: CapturingSmsSender; store: InMemorySyncStore }> {
  const built = await build({ env: { RATE_LIMIT_MAX_REQUESTS: '100000', OTP_RESEND_SECONDS: '0', SESSION_CACHE_SECONDS: '0' }, tokens: new FakeTokenSigner(), random: cryptoRandom, streams: true });
  const { sms, store } = built;
  app = built.app;
  return { base: await app.listen({ port: 0, host: '127.0.0.1' }), sms, store };
}

async function client(base: string, sms: CapturingSmsSender, phone: string, name: string): Promise<SyncClient> {
  const c = createSyncClient({ baseUrl: base, store: new MemoryStore(), device: { platform: 'test', name }, periodicMs: 3_600_000, debounceMs: 5 });
  clients.push(c);
  await c.open();
  await c.auth.sendOtp(phone);
  await c.auth.verifyOtp(phone, sms.lastCode(phone));
  return c;
}

describe('the SDK notification listener', () => {
  it('writes on one device reach a started device through the stream alone', async () => {
    const { base, sms, store } = await serve();
    const phone = await client(base, sms, '+15557770001', 'phone');
    const laptop = await client(base, sms, '+15557770001', 'laptop');
    laptop.start();
    const calendarUid = await phone.calendars.put({ name: 'Work' });
    const first = await phone.tasks.put({ title: 'from the phone' });
    await phone.sync();
    await until(() => laptop.tasks.get(first) !== undefined && laptop.calendars.get(calendarUid) !== undefined);

    const second = await phone.events.put({ calendarUid, title: 'later', startTime: '2026-01-01T10:00:00.000Z', endTime: '2026-01-01T11:00:00.000Z' });
    await phone.sync();
    await until(() => laptop.events.get(second) !== undefined);
    void store;
  });

  it('a reminder event reaches client.reminders.onDue listeners, and an unsubscribed one hears nothing', async () => {
    const { base, sms, store } = await serve();
    const laptop = await client(base, sms, '+15557770003', 'laptop');
    const heard: unknown[] = [];
    const gone: unknown[] = [];
    laptop.reminders.onDue((due) => heard.push(due));
    laptop.reminders.onDue((due) => gone.push(due))();
    laptop.start();
    await until(() => laptop.status.lastSyncAt !== null);
    const userId = (await laptop.profile.get()).id;
    const due = { reminderUid: 'r1', eventUid: 'e1', occurrenceStart: '2026-01-01T10:00:00.000Z', title: 'Dentist', start: '2026-01-01T10:00:00.000Z', dueAt: '2026-01-01T09:50:00.000Z' };
    // The stream is open once ready came; announce until the listener heard it (the first may precede the stream).
    await until(() => {
      if (heard.length === 0) store.changes.publishAlert({ kind: 'reminder', userId, ...due });
      return heard.length > 0;
    });
    expect(heard[0]).toEqual(due);
    expect(gone).toEqual([]);
  });

  it('a revoked device hears it on the stream and signs out', async () => {
    const { base, sms } = await serve();
    const phone = await client(base, sms, '+15557770002', 'phone');
    const laptop = await client(base, sms, '+15557770002', 'laptop');
    laptop.start();
    await until(() => laptop.status.lastSyncAt !== null);
    const token = (phone.auth as unknown as { accessToken(): string }).accessToken();
    const devices = (await (await fetch(`${base}/api/auth/devices`, { headers: { authorization: `Bearer ${token}` } })).json()) as { data: { devices: { uid: string; current: boolean }[] } };
    const laptopUid = devices.data.devices.find((d) => !d.current)!.uid;
    expect((await fetch(`${base}/api/auth/devices/${laptopUid}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    await until(() => !laptop.status.signedIn);
  });
});

describe('a stream refused because the session ended', () => {
  it('asks for a round at once, so the client finds out without waiting for its timer', async () => {
    const { base, sms } = await serve();
    const phone = await client(base, sms, '+15557770003', 'phone');
    const laptop = await client(base, sms, '+15557770003', 'laptop');
    const laptopToken = (laptop.auth as unknown as { accessToken(): string }).accessToken();
    const token = (phone.auth as unknown as { accessToken(): string }).accessToken();
    const devices = (await (await fetch(`${base}/api/auth/devices`, { headers: { authorization: `Bearer ${token}` } })).json()) as { data: { devices: { uid: string; current: boolean }[] } };
    const laptopUid = devices.data.devices.find((d) => !d.current)!.uid;
    expect((await fetch(`${base}/api/auth/devices/${laptopUid}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    // The laptop's listener connects only now, after the revoke: the stream is refused (401), so
    // no `closed` event ever reaches it; the refusal itself must ask for a round.
    const reasons: string[] = [];
    const stop = notificationStreamTrigger({ baseUrl: base, fetch, tokens: { accessToken: () => laptopToken, renew: async () => false }, random: Math.random, now: Date.now })((reason) => reasons.push(reason));
    try {
      await until(() => reasons.includes('notification'));
    } finally {
      stop();
    }
  });
});
