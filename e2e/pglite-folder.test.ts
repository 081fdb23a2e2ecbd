import { SeededRandom, startStandInSmsGateway, type StandInSmsGateway } from '@calsync/testkit';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from './lib/http.js';
import { RealServerProcess } from './lib/server-process.js';
import { RECORD_TYPES } from '@calsync/domain/records';
import type { PullResponseWire as PullData, PushResponseWire as PushData } from '@calsync/wire';

// The real server process on a PGlite folder: a second process on the same folder is refused at
// start-up (a lock file with the owner's pid); kill -9 at a random moment of a write burst, again and
// again, leaves a folder that opens (taking over the stale lock) with every acknowledged write.

const SECRETS = {
  JWT_SECRET: 'pglite-access-secret-0123456789abcdefghij',
  JWT_REFRESH_SECRET: 'pglite-refresh-secret-0123456789abcdefgh',
  SYNC_CURSOR_SECRET: 'pglite-cursor-secret-0123456789abcdefghi',
};
const KILL_ROUNDS = Number(process.env.KILL_ROUNDS ?? 3);
/** When each kill -9 lands (300..1800 ms into a burst of pushes): seeded, so a failing run replays with the same kill times. */
const killAfter = new SeededRandom(7);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('one PGlite folder, one process', () => {
  let dir: string;
  let gateway: StandInSmsGateway;
  let env: Record<string, string>;
  const phone = '+15550008001';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'calsync-pglite-'));
    gateway = await startStandInSmsGateway();
    env = {
      DATABASE_URL: `pglite://${join(dir, 'data')}`,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      ...SECRETS,
      SMS_GATEWAY_URL: gateway.url,
      SMS_GATEWAY_API_KEY: 'pglite-gateway-key-0123456789abcdef',
      SMS_GATEWAY_SENDER: 'PGlite',
      OTP_RESEND_SECONDS: '0',
      RATE_LIMIT_MAX_REQUESTS: '1000000',
    };
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function signIn(http: HttpClient): Promise<string> {
    await http.ok('POST', '/api/auth/send-otp', { body: { phone } });
    return (await http.ok<{ accessToken: string }>('POST', '/api/auth/verify-otp', { body: { phone, otp: gateway.lastCode(phone) } })).accessToken;
  }

  async function allRecords(http: HttpClient, token: string): Promise<Map<string, string>> {
    const seen = new Map<string, string>();
    let cursor: string | undefined;
    for (;;) {
      const path = `/api/sync/changes?limit=500${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
      const page = await http.ok<PullData>('GET', path, { token });
      for (const type of RECORD_TYPES) for (const r of page[type]) seen.set(r.uid, r.version!);
      cursor = page.nextCursor;
      if (!page.hasMore) return seen;
    }
  }

  it('refuses a second process on the same folder with a clear message; the first keeps serving', async () => {
    const first = new RealServerProcess(env);
    await first.start(180_000);
    try {
      const second = new RealServerProcess(env);
      await expect(second.start(180_000)).rejects.toThrow(/exited before it was ready/);
      expect((await second.terminate()).code).toBe(1);
      expect(second.log()).toMatch(/PGlite folder .* is in use by process \d+ \(lock file .*data\.lock\)/);
      const http = new HttpClient(first.baseUrl);
      expect((await http.request('GET', '/health/ready')).status).toBe(200);
    } finally {
      expect((await first.terminate()).code).toBe(0);
    }
  }, 400_000);

  it(`kill -9 at a random moment of a write burst (${KILL_ROUNDS} rounds): the folder reopens with every acknowledged write`, async () => {
    const acknowledged = new Map<string, string>();
    for (let round = 0; round < KILL_ROUNDS; round++) {
      const server = new RealServerProcess(env);
      // Every start after the first takes over the lock a killed process left behind.
      await server.start(180_000);
      const http = new HttpClient(server.baseUrl);
      const token = await signIn(http);
      const present = await allRecords(http, token);
      const lost = [...acknowledged].filter(([uid, version]) => present.get(uid) !== version).map(([uid]) => uid);
      expect(lost, `round ${round}: acknowledged writes missing after kill -9`).toEqual([]);

      let stop = false;
      const burst = (async () => {
        for (let i = 0; !stop; i++) {
          const uids = [0, 1, 2].map((k) => `r${round}-${i}-${k}`);
          let data: PushData;
          try {
            data = await http.ok<PushData>('POST', '/api/sync/push', { token, body: { tasks: uids.map((uid) => ({ uid, op: 'upsert', baseVersion: null, title: uid })) } });
          } catch {
            return; // the process is gone: this push was never acknowledged
          }
          for (const r of data.tasks) if (r.status !== 'error') acknowledged.set(r.uid, r.version!);
        }
      })();
      await sleep(300 + killAfter.int(1500));
      const exit = await server.kill();
      stop = true;
      await burst;
      expect(exit.signal).toBe('SIGKILL');
    }
    expect(acknowledged.size).toBeGreaterThan(0);
    const last = new RealServerProcess(env);
    await last.start(180_000);
    try {
      const http = new HttpClient(last.baseUrl);
      const present = await allRecords(http, await signIn(http));
      expect([...acknowledged].filter(([uid, version]) => present.get(uid) !== version)).toEqual([]);
      console.info(`[pglite folder] ${KILL_ROUNDS} kill -9 rounds, ${acknowledged.size} acknowledged writes, all present after reopening`);
    } finally {
      await last.terminate();
    }
  }, 900_000);
});
