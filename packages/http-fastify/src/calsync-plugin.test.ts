import { createSyncClient, MemoryStore, type SyncClient } from '@calsync/client';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { build } from '../test-support/index.js';

// calsync inside someone else's Fastify app: the host registers the plugin under /calsync next to
// its own /hello route, and two devices (the SDK over real HTTP) sign in and sync through it.
describe('the calsync plugin in a host app', () => {
  let host: FastifyInstance;
  const clients: SyncClient[] = [];
  afterAll(async () => {
    for (const c of clients) await c.close();
    await host?.close();
  });

  it('serves the host route and the whole service under the prefix; two devices sync through it', async () => {
    host = Fastify();
    host.get('/hello', async () => ({ hello: 'world' }));
    const { sms } = await build({ host: { app: host, prefix: '/calsync' }, streams: true });
    const base = await host.listen({ port: 0, host: '127.0.0.1' });

    expect(await (await fetch(`${base}/hello`)).json()).toEqual({ hello: 'world' });
    expect((await fetch(`${base}/calsync/health/ready`)).status).toBe(200);
    const doc = (await (await fetch(`${base}/calsync/api-docs-json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toContain('/calsync/api/sync/push');
    // The host's routes keep the host's rules: no calsync envelope, no calsync rate-limit headers.
    const hello = await fetch(`${base}/hello`);
    expect(hello.headers.get('x-ratelimit-limit')).toBeNull();
    const missing = await fetch(`${base}/calsync/api/nothing-here`);
    expect([missing.status, ((await missing.json()) as { error: { code: string } }).error.code]).toEqual([404, 'NOT_FOUND']);

    const phone = '+15550123456';
    const device = (name: string) => {
      const c = createSyncClient({ baseUrl: `${base}/calsync`, store: new MemoryStore(), device: { platform: 'test', name } });
      clients.push(c);
      return c;
    };
    const signIn = async (c: SyncClient) => {
      await c.open();
      await c.auth.sendOtp(phone);
      await c.auth.verifyOtp(phone, sms.lastCode(phone));
    };
    const laptop = device('laptop');
    const phoneApp = device('phone');
    await signIn(laptop);
    await signIn(phoneApp);
    const calendarUid = laptop.calendars.list()[0]!.uid;
    await laptop.events.put({ uid: 'ev-hosted', calendarUid, title: 'Through the host', startTime: '2030-01-07T09:00:00.000Z', endTime: '2030-01-07T10:00:00.000Z' });
    await laptop.sync();
    await phoneApp.sync();
    expect(phoneApp.events.get('ev-hosted')).toMatchObject({ title: 'Through the host', calendarUid });
    expect(laptop.status).toMatchObject({ pending: 0, failed: 0 });
  });
});
