import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStandInFcm, type StandInFcm } from '@calsync/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FcmClient, retryAfterMs } from './fcm-client.js';
import { loadServiceAccount } from './service-account.js';

let fcm: StandInFcm;
const waits: number[] = [];

beforeEach(async () => {
  fcm = await startStandInFcm();
  waits.length = 0;
});
afterEach(() => fcm.close());

async function client(extra: Partial<ConstructorParameters<typeof FcmClient>[0]> = {}): Promise<FcmClient> {
  return new FcmClient({
    projectId: fcm.projectId,
    account: await loadServiceAccount(fcm.serviceAccountJson),
    endpoint: fcm.endpoint,
    tokenUrl: fcm.tokenUrl,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...extra,
  });
}

describe('FcmClient against the stand-in FCM', () => {
  it('exchanges a signed service-account assertion once and sends the sync data message', async () => {
    const c = await client();
    expect(await c.send('tok-a', '42')).toEqual({ ok: true });
    expect(await c.send('tok-b', '43')).toEqual({ ok: true });
    expect(fcm.rejected).toEqual([]);
    expect(fcm.exchanges).toHaveLength(1);
    expect(fcm.delivered.map((m) => [m.token, m.data])).toEqual([
      ['tok-a', { type: 'sync', version: '42' }],
      ['tok-b', { type: 'sync', version: '43' }],
    ]);
    expect(fcm.delivered[0]!.message).toMatchObject({
      android: { collapse_key: 'sync' },
      apns: { headers: { 'apns-push-type': 'background', 'apns-priority': '5', 'apns-collapse-id': 'sync' }, payload: { aps: { 'content-available': 1 } } },
    });
  });

  it('takes the token endpoint from the key file when FCM_TOKEN_URL is not set, and reads a key from a path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fcm-key-'));
    const path = join(dir, 'key.json');
    await writeFile(path, fcm.serviceAccountJson);
    const c = new FcmClient({ projectId: fcm.projectId, account: await loadServiceAccount(path), endpoint: fcm.endpoint });
    expect(await c.send('tok-a', '1')).toEqual({ ok: true });
    expect(fcm.exchanges).toHaveLength(1);
  });

  it('a key from another service account fails the exchange: the send reports token-exchange', async () => {
    const other = await startStandInFcm();
    try {
      const c = await client({ account: await loadServiceAccount(other.serviceAccountJson) });
      expect(await c.send('tok-a', '1')).toMatchObject({ ok: false, reason: 'token-exchange' });
      expect(fcm.delivered).toEqual([]);
      expect(fcm.rejected[0]).toMatch(/token exchange/);
    } finally {
      await other.close();
    }
  });

  it('retries 503 and 429 honouring Retry-After, then succeeds', async () => {
    fcm.behave('flaky', { kind: 'flaky', failures: 2, status: 503, retryAfter: 3 });
    fcm.behave('busy', { kind: 'flaky', failures: 1, status: 429, retryAfter: 7 });
    const c = await client();
    expect(await c.send('flaky', '5')).toEqual({ ok: true });
    expect(await c.send('busy', '6')).toEqual({ ok: true });
    expect(waits).toEqual([3000, 3000, 7000]);
    expect(fcm.attempts.map((a) => a.status)).toEqual([503, 503, 200, 429, 200]);
  });

  it('without Retry-After backs off exponentially, and gives up after maxAttempts with the reason', async () => {
    fcm.behave('down', { kind: 'flaky', failures: 99, status: 500 });
    const c = await client({ maxAttempts: 3, baseDelayMs: 100 });
    expect(await c.send('down', '5')).toMatchObject({ ok: false, reason: 'unavailable', clearToken: false });
    expect(fcm.attempts).toHaveLength(3);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThanOrEqual(50);
    expect(waits[0]).toBeLessThanOrEqual(100);
    expect(waits[1]).toBeGreaterThanOrEqual(100);
    expect(waits[1]).toBeLessThanOrEqual(200);
  });

  it('UNREGISTERED and an invalid token are not retried and ask for the token to be cleared', async () => {
    fcm.behave('gone', { kind: 'unregistered' });
    fcm.behave('bad', { kind: 'invalid' });
    const c = await client();
    expect(await c.send('gone', '1')).toMatchObject({ ok: false, reason: 'unregistered', clearToken: true });
    expect(await c.send('bad', '1')).toMatchObject({ ok: false, reason: 'invalid-token', clearToken: true });
    expect(fcm.attempts).toHaveLength(2);
    expect(waits).toEqual([]);
  });

  it('a server that does not answer is a network failure, retried', async () => {
    const c = await client({ endpoint: 'http://127.0.0.1:1', maxAttempts: 2 });
    expect(await c.send('x', '1')).toMatchObject({ ok: false, reason: 'network' });
    expect(waits).toHaveLength(1);
  });
});

describe('service account and Retry-After parsing', () => {
  it('refuses JSON without a key, and an unreadable path, in one line without the key', async () => {
    await expect(loadServiceAccount('{"client_email":"a"}')).rejects.toThrow('client_email and private_key');
    await expect(loadServiceAccount('{not json')).rejects.toThrow('not valid JSON');
    await expect(loadServiceAccount('/nonexistent/key.json')).rejects.toThrow('cannot be read (ENOENT)');
  });

  it('reads seconds and HTTP dates', () => {
    expect(retryAfterMs('12')).toBe(12000);
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs('soon')).toBeNull();
    expect(retryAfterMs(new Date(10_000 + 5000).toUTCString(), 10_000)).toBe(5000);
  });
});
