import { until } from '@calsync/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, MemoryStore } from './index.js';
import { backoffDelay, MAX_BACKOFF_MS } from './engine/backoff.js';
import { SyncRunner } from './engine/sync-runner.js';
import { clientOf, FaultyFetch, signIn, startInMemoryService, type InMemoryService } from '../test-support/index.js';

let service: InMemoryService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

/** A fetch that records the paths it was asked for. */
function recording(inner: typeof fetch): { fetch: typeof fetch; paths: string[] } {
  const paths: string[] = [];
  const fetchFn = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    paths.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
    return inner(input, init);
  }) as typeof fetch;
  return { fetch: fetchFn, paths };
}

describe('error paths', () => {
  it('an expired access token is refreshed once with the device uid and the request repeated once', async () => {
    service = await startInMemoryService();
    const rec = recording(service.fetch);
    const a = await clientOf(service, { fetch: rec.fetch });
    await signIn(service, a, '+15550002001');
    const before = a.auth.accessToken();
    await a.tasks.put({ title: 'after expiry' });
    service.clock.advanceSeconds(16 * 60); // the access token (15 min) is now expired for real
    rec.paths.length = 0;
    await a.sync();
    expect(rec.paths).toEqual(['POST /api/sync/push', 'POST /api/auth/refresh', 'POST /api/sync/push', 'GET /api/sync/changes']);
    expect(a.auth.accessToken()).not.toBe(before);
    expect(a.status).toMatchObject({ signedIn: true, pending: 0 });
  });

  it('concurrent 401s share one refresh (the rotating refresh token is never replayed)', async () => {
    service = await startInMemoryService();
    const rec = recording(service.fetch);
    const a = await clientOf(service, { fetch: rec.fetch });
    await signIn(service, a, '+15550002002');
    service.clock.advanceSeconds(16 * 60);
    rec.paths.length = 0;
    const [first, second] = await Promise.all([a.conflicts.list(), a.conflicts.list()]);
    expect(first).toEqual([]);
    expect(second).toEqual([]);
    expect(rec.paths.filter((p) => p === 'POST /api/auth/refresh')).toHaveLength(1);
    expect(a.status.signedIn).toBe(true);
  });

  it('a refused refresh signs out (event and status) and keeps the unsent writes for the next sign-in', async () => {
    service = await startInMemoryService();
    const store = new MemoryStore();
    const a = await clientOf(service, { store });
    await signIn(service, a, '+15550002003');
    const ended: ApiError[] = [];
    a.auth.onSignedOut((e) => ended.push(e));
    const t = await a.tasks.put({ title: 'keep me' });
    service.clock.advanceSeconds(91 * 24 * 3600); // refresh token (90 d) expired too
    await expect(a.sync()).rejects.toMatchObject({ kind: 'signed-out' });
    expect(ended.map((e) => e.code)).toEqual(['REFRESH_INVALID']);
    expect(a.status).toMatchObject({ signedIn: false, pending: 1, lastError: { kind: 'signed-out' } });
    expect(a.tasks.get(t)?.title).toBe('keep me');
    await signIn(service, a, '+15550002003');
    expect(a.status).toMatchObject({ signedIn: true, pending: 0 });
    expect(service.syncStore.snapshotRows(a.auth.user()!.id, 'tasks').map((r) => r.fields.title)).toEqual(['keep me']);
  });

  it('a batch the server finds too large (413) is split until it fits, order kept', async () => {
    service = await startInMemoryService({ env: { BODY_LIMIT_BYTES: '6000' } });
    const rec = recording(service.fetch);
    const a = await clientOf(service, { fetch: rec.fetch });
    await signIn(service, a, '+15550002004');
    const parent = await a.tasks.put({ title: 'parent' });
    for (let i = 0; i < 40; i++) await a.tasks.put({ title: `subtask ${i} ${'x'.repeat(100)}`, parentTaskUid: parent });
    rec.paths.length = 0;
    await a.sync();
    expect(rec.paths.filter((p) => p === 'POST /api/sync/push').length).toBeGreaterThan(2);
    expect(a.status).toMatchObject({ pending: 0, failed: 0 });
    expect(service.syncStore.snapshotRows(a.auth.user()!.id, 'tasks')).toHaveLength(41);
  });

  it('the started loop waits Retry-After after a 429 and then syncs', async () => {
    service = await startInMemoryService();
    const faulty = new FaultyFetch(service.fetch);
    const a = await clientOf(service, { fetch: faulty.fetch, debounceMs: 1 });
    await signIn(service, a, '+15550002005');
    let once = true;
    faulty.next = ({ path }) => (path === '/api/sync/push' && once ? ((once = false), 'rate-limited') : null);
    a.start();
    await a.tasks.put({ title: 'rate limited first' });
    await until(() => a.status.lastError?.kind === 'rate-limited');
    expect(a.status.pending).toBe(1);
    await until(() => a.status.pending === 0 && !a.status.syncing);
    expect(a.status.lastError).toBeNull();
    await a.close();
  });
});

describe('sync runner', () => {
  it('schedules the retry after Retry-After, else after a jittered backoff; never after a sign-out', async () => {
    const waits: number[] = [];
    let failWith: Error | null = new ApiError('rate-limited', 429, 'RATE_LIMITED', 'slow down', 7000);
    const runner = new SyncRunner({
      round: async () => {
        if (failWith) throw failWith;
      },
      exclusive: (fn) => fn(),
      mayRun: () => true,
      hasPushable: () => false,
      random: () => 0.5,
      onState: () => undefined,
      setTimer: (_fn, ms) => waits.push(ms),
      clearTimer: () => undefined,
    });
    runner.start();
    await runner.sync().catch(() => undefined);
    failWith = new ApiError('network', 0, 'NETWORK_ERROR', 'offline');
    await runner.sync().catch(() => undefined);
    await runner.sync().catch(() => undefined);
    failWith = new ApiError('signed-out', 401, 'REFRESH_INVALID', 'gone');
    await runner.sync().catch(() => undefined);
    expect(waits).toEqual([7000, backoffDelay(2, () => 0.5), backoffDelay(3, () => 0.5)]);
  });

  it('backoff grows exponentially with full jitter and is capped at 60 s', () => {
    expect(backoffDelay(1, () => 0.999)).toBeLessThan(1000);
    expect(backoffDelay(4, () => 0.999)).toBeGreaterThan(7000);
    expect(backoffDelay(4, () => 0.999)).toBeLessThan(8000);
    for (const n of [7, 20, 1000]) expect(backoffDelay(n, () => 0.999999)).toBeLessThan(MAX_BACKOFF_MS);
    expect(backoffDelay(30, () => 0.999999)).toBeGreaterThan(MAX_BACKOFF_MS - 100);
    expect(backoffDelay(30, () => 0)).toBe(0);
  });
});
