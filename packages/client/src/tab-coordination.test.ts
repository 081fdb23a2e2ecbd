import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryStore, type SyncClient } from './index.js';
import { clientOf, signIn, startInMemoryService, type InMemoryService } from '../test-support/index.js';

// Two tabs of one browser: two clients over one store (as two tabs share one IndexedDB database),
// the Web Locks API stood in by a FIFO lock per name (Node has none), and Node's own
// BroadcastChannel between them, as in a browser.

/** `navigator.locks` as far as the client uses it: one holder per name, the others wait in turn. */
class FifoLocks {
  readonly #tails = new Map<string, Promise<void>>();
  request(name: string, options: { signal?: AbortSignal }, callback: () => Promise<void>): Promise<void> {
    const run = (this.#tails.get(name) ?? Promise.resolve()).then(() => {
      if (options.signal?.aborted) throw new DOMException('aborted', 'AbortError');
      return callback();
    });
    this.#tails.set(name, run.catch(() => undefined));
    return run;
  }
}

/** A fetch that records the sync requests it sent. */
function recording(inner: typeof fetch): { fetch: typeof fetch; syncCalls: string[] } {
  const syncCalls: string[] = [];
  const fetchFn = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const path = new URL(String(input)).pathname;
    if (path.startsWith('/api/sync/')) syncCalls.push(`${init?.method ?? 'GET'} ${path}`);
    return inner(input, init);
  }) as typeof fetch;
  return { fetch: fetchFn, syncCalls };
}

let service: InMemoryService | undefined;
const clients: SyncClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  vi.unstubAllGlobals();
  await service?.close();
  service = undefined;
});

describe('two tabs of one browser', () => {
  it('two tabs that write before either has seen the other\'s write both keep their write: their outbox items never share a seq', async () => {
    service = await startInMemoryService();
    const store = new MemoryStore();
    const options = { store, notifications: false } as const;
    const a = await clientOf(service, options);
    clients.push(a);
    await signIn(service, a, '+15550003002');
    const b = await clientOf(service, options); // opened on the same store: the same session
    clients.push(b);
    // Neither tab has reloaded the other's write when it writes its own.
    const fromA = await a.tasks.put({ title: 'written in tab A' });
    const fromB = await b.tasks.put({ title: 'written in tab B' });
    expect((await store.load()).outbox.map((i) => i.uid).sort()).toEqual([fromA, fromB].sort());

    const c = await clientOf(service, options); // a third tab, or the next start, syncs both
    clients.push(c);
    await c.sync();
    const server = service.syncStore.snapshotRows(c.auth.user()!.id, 'tasks').map((r) => r.fields.title).sort();
    expect(server).toEqual(['written in tab A', 'written in tab B']);
  });

  it('a write in the follower tab makes the leader sync it at once (no timer), and only the leader talks to the sync routes', async () => {
    vi.stubGlobal('navigator', { locks: new FifoLocks(), onLine: true });
    service = await startInMemoryService();
    const store = new MemoryStore();
    // The periodic timer is an hour: only the follower's announcement can make the leader push.
    const options = { store, lockName: 'tabs-test', notifications: false, periodicMs: 3_600_000 } as const;
    const leaderFetch = recording(service.fetch);
    const leader = await clientOf(service, { ...options, fetch: leaderFetch.fetch });
    clients.push(leader);
    await signIn(service, leader, '+15550003001');
    leader.start();
    await vi.waitFor(() => expect(leader.status.lastSyncAt).not.toBeNull());

    const followerFetch = recording(service.fetch);
    const follower = await clientOf(service, { ...options, fetch: followerFetch.fetch });
    clients.push(follower);
    follower.start();
    expect(follower.status.signedIn).toBe(true);
    leaderFetch.syncCalls.length = 0;

    const uid = await follower.tasks.put({ title: 'written in the other tab' });
    await vi.waitFor(() => expect(service!.syncStore.snapshotRows(1, 'tasks').map((r) => r.uid)).toContain(uid), { timeout: 10_000 });
    expect(leaderFetch.syncCalls).toContain('POST /api/sync/push');
    expect(followerFetch.syncCalls).toEqual([]);
    // The leader's round is announced too: the follower reloads and sees the server's version.
    await vi.waitFor(() => expect(follower.tasks.get(uid)?.version).toMatch(/^[0-9]+$/), { timeout: 10_000 });
    expect(follower.status.pending).toBe(0);
    expect(leader.tasks.get(uid)).toEqual(follower.tasks.get(uid));
  });
});
