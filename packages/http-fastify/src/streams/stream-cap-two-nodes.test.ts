import { randomInt } from 'node:crypto';
import { openEventStream, type InMemorySyncStore, type OpenedStream } from '@calsync/testkit';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { build, type TestApp } from '../../test-support/index.js';

// Two app nodes behind one Redis (REDIS_URL) and one store: STREAM_MAX_PER_USER holds over both,
// not per node. Real listening servers, real sign-in; the stores are shared in memory as a
// database would be.
const url = inject('testRedisUrl');

describe.runIf(url !== null)('the per-user stream cap over two nodes', () => {
  const apps: FastifyInstance[] = [];
  const redisClients: Redis[] = [];
  const opened: OpenedStream[] = [];
  afterAll(async () => {
    for (const s of opened) s.close();
    for (const app of apps) await app.close();
    for (const c of redisClients) c.disconnect();
  });

  it('refuses a third stream of a user on either node while two are open, and frees the slot when one closes', async () => {
    const env = { STREAM_MAX_PER_USER: '2', RATE_LIMIT_MAX_REQUESTS: '1000', SESSION_CACHE_SECONDS: '0' };
    let first: TestApp<InMemorySyncStore> | undefined;
    const node = async (): Promise<string> => {
      const redis = new Redis(url!, { maxRetriesPerRequest: 1 });
      redisClients.push(redis);
      const built = await build({ env, seed: 25, streams: true, redis, ...(first ? { nodeOf: first } : {}) });
      first ??= built;
      apps.push(built.app);
      return built.app.listen({ port: 0, host: '127.0.0.1' });
    };
    const [a, b] = [await node(), await node()];
    const { auth, sms } = first!;
    // A phone no earlier run used, so leases left in Redis by another run do not interfere.
    const phone = `+1555${randomInt(1_000_000, 9_999_999)}`;
    await auth.sendOtp(phone);
    const { accessToken } = await auth.verifyOtp(phone, sms.lastCode(phone));
    const headers = { authorization: `Bearer ${accessToken}` };
    const stream = async (base: string) => {
      const s = await openEventStream(`${base}/api/sync/stream`, headers);
      opened.push(s);
      return s;
    };

    const onA = await stream(a);
    const onB = await stream(b);
    expect([onA.status, onB.status]).toEqual([200, 200]);
    for (const base of [a, b]) {
      const third = await stream(base);
      expect(third.status).toBe(429);
      expect(third.refusal).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    }
    onA.close();
    // The slot frees once node A sees the connection gone; node B may then admit one.
    let again: OpenedStream | null = null;
    for (let i = 0; i < 50 && again?.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 20));
      again = await stream(b);
    }
    expect(again?.status).toBe(200);
    expect((await stream(a)).status).toBe(429);
  });
});
