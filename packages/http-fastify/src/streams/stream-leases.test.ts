import { randomInt, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { InMemoryStreamLeases, RedisStreamLeases, type StreamLeases } from './stream-leases.js';

// The StreamLeases contract (stream-leases.ts), on every adapter: in memory always, Redis when the
// unit tests have one (TEST_REDIS_URL). "Nodes" are holders sharing one store.
const url = inject('testRedisUrl');
const clients: Redis[] = [];
afterAll(() => {
  for (const c of clients) c.disconnect();
});

interface Adapter {
  readonly name: string;
  /** Two nodes on one store, with this lease length. */
  nodes(leaseMs: number): [StreamLeases, StreamLeases];
}

const adapters: Adapter[] = [
  { name: 'in memory', nodes: () => { const one = new InMemoryStreamLeases(); return [one, one]; } },
];
if (url !== null) {
  const redis = () => {
    const c = new Redis(url, { maxRetriesPerRequest: 1 });
    clients.push(c);
    return c;
  };
  adapters.push({ name: 'Redis', nodes: (leaseMs) => [new RedisStreamLeases(redis(), leaseMs), new RedisStreamLeases(redis(), leaseMs)] });
}

describe.each(adapters)('StreamLeases contract: $name', (adapter) => {
  // A user id no earlier run used, so leases left in Redis by another run do not interfere.
  const user = () => randomInt(1_000_000, 2_000_000_000);
  const lease = (userId: number) => ({ userId, id: randomUUID() });

  it('holds the cap over all nodes, concurrent acquires included, and frees a released slot', async () => {
    const [a, b] = adapter.nodes(60_000);
    const u = user();
    const first = lease(u);
    expect(await a.acquire(first, 2)).toBe(true);
    const racing = await Promise.all([lease(u), lease(u), lease(u)].map((l, i) => (i % 2 === 0 ? a : b).acquire(l, 2)));
    expect(racing.filter(Boolean)).toHaveLength(1);
    expect(await b.acquire(lease(u), 2)).toBe(false);
    expect(await a.acquire(lease(user()), 2)).toBe(true);
    await b.release(first);
    await b.release(first);
    expect(await b.acquire(lease(u), 2)).toBe(true);
    expect(await a.acquire(lease(u), 2)).toBe(false);
  });

  it('keeps renewed slots and frees those of a node that stopped renewing after the lease', async () => {
    const [a, b] = adapter.nodes(400);
    const u = user();
    const kept = lease(u);
    const abandoned = lease(u);
    expect(await a.acquire(kept, 2)).toBe(true);
    expect(await b.acquire(abandoned, 2)).toBe(true);
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 200));
      await a.renew([kept]);
    }
    // The in-memory store is one process: its slots end only by release.
    if (adapter.name === 'in memory') await b.release(abandoned);
    expect(await b.acquire(lease(u), 2)).toBe(true);
    expect(await a.acquire(lease(u), 2)).toBe(false);
  });
});
