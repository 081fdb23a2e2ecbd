import { randomInt } from 'node:crypto';
import { Redis } from 'ioredis';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { asUser, build } from '../test-support/index.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Redis server the unit tests may use (vitest.config.ts, from TEST_REDIS_URL; null: none). */
    testRedisUrl: string | null;
  }
}

// A real Redis (CI sets TEST_REDIS_URL to the local server): the point of REDIS_URL is that several
// app nodes share one counter per user, which only a real shared store can show. The vitest
// project configuration chooses the server, as it chooses the test database.
const url = inject('testRedisUrl');

describe.runIf(url !== null)('rate limit counters in Redis', () => {
  const clients: Redis[] = [];
  const apps: FastifyInstance[] = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const client of clients) client.disconnect();
  });

  async function node(): Promise<FastifyInstance> {
    const redis = new Redis(url!, { maxRetriesPerRequest: 1 });
    clients.push(redis);
    const { app } = await build({ standIns: ['engine', 'sign-in'], env: { RATE_LIMIT_MAX_REQUESTS: '3', RATE_LIMIT_WINDOW_MS: '60000' }, redis });
    apps.push(app);
    return app;
  }

  it('two app nodes share one per-user counter', async () => {
    const [a, b] = [await node(), await node()];
    // A user id no earlier run used, so counters left in Redis by another run do not interfere.
    const user = asUser(randomInt(1_000_000, 2_000_000_000));
    expect((await a.inject({ method: 'GET', url: '/api/sync/conflicts', headers: user })).statusCode).toBe(200);
    expect((await b.inject({ method: 'GET', url: '/api/sync/changes', headers: user })).statusCode).toBe(200);
    expect((await a.inject({ method: 'GET', url: '/api/users/stats', headers: user })).statusCode).toBe(200);
    const limited = await b.inject({ method: 'GET', url: '/api/sync/conflicts', headers: user });
    expect([limited.statusCode, limited.json().error.code]).toEqual([429, 'RATE_LIMITED']);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });
});
