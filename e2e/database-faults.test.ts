import { startStandInSmsGateway, type StandInSmsGateway } from '@calsync/testkit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, type ErrorEnvelope } from './lib/http.js';
import { RealServerProcess } from './lib/server-process.js';
import { canRunThrowawayPostgres, ThrowawayPostgres } from './lib/throwaway-postgres.js';
import { RECORD_TYPES } from '@calsync/domain/records';
import type { PullResponseWire as PullData, PushResponseWire as PushData } from '@calsync/wire';

// The real server process on a PostgreSQL instance of its own, which the test fails under load:
// backends killed (pg_terminate_backend), fast and immediate stops and restarts. The process must
// keep running, answer 503 DATABASE_UNAVAILABLE (with Retry-After) while the database is gone,
// serve again once it is back, and lose no write it acknowledged. Start-up waits for the database.

const SECRETS = {
  JWT_SECRET: 'faults-access-secret-0123456789abcdefghij',
  JWT_REFRESH_SECRET: 'faults-refresh-secret-0123456789abcdefgh',
  SYNC_CURSOR_SECRET: 'faults-cursor-secret-0123456789abcdefghi',
};
const API_KEY = 'faults-gateway-key-0123456789abcdef';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the load saw: status counts, every non-200 answer that was not a proper 503, acknowledged writes. */
class Tally {
  readonly statuses = new Map<number, number>();
  readonly improper: string[] = [];
  /** uid → version acknowledged by a 200 push, per user token. */
  readonly acknowledged = new Map<string, Map<string, bigint>>();
  lastOkAt = 0;

  note(status: number, headers: Headers, body: unknown, what: string): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    if (status === 200) {
      this.lastOkAt = Date.now();
      return;
    }
    const code = (body as ErrorEnvelope | undefined)?.error?.code;
    const proper = status === 503 && code === 'DATABASE_UNAVAILABLE' && Number(headers.get('retry-after')) >= 1;
    if (!proper) this.improper.push(`${what}: ${status} ${JSON.stringify(body).slice(0, 200)}`);
  }

  count(status: number): number {
    return this.statuses.get(status) ?? 0;
  }
}

describe.runIf(canRunThrowawayPostgres())('the server process through database faults', () => {
  let database: ThrowawayPostgres;
  let gateway: StandInSmsGateway;
  let server: RealServerProcess;
  let http: HttpClient;
  const tokens: string[] = [];
  const tally = new Tally();
  let stopLoad = false;
  let load: Promise<void> = Promise.resolve();
  const recoveries: Record<string, number> = {};

  beforeAll(async () => {
    database = await ThrowawayPostgres.create();
    gateway = await startStandInSmsGateway();
  }, 120_000);

  afterAll(async () => {
    stopLoad = true;
    await load;
    if (server?.running) await server.terminate();
    await gateway?.close();
    await database?.destroy();
    if (Object.keys(recoveries).length > 0) console.info(`[database faults] serving again after the database returned: ${JSON.stringify(recoveries)} (ms)`);
  }, 120_000);

  async function worker(token: string, n: number): Promise<void> {
    const acked = tally.acknowledged.get(token) ?? new Map<string, bigint>();
    tally.acknowledged.set(token, acked);
    let cursor: string | undefined;
    for (let i = 0; !stopLoad; i++) {
      const uid = `w${n}-t${i}`;
      const push = await http.request<{ data: PushData }>('POST', '/api/sync/push', {
        token,
        body: { tasks: [{ uid, op: 'upsert', baseVersion: null, title: `task ${i}` }] },
      });
      tally.note(push.status, push.headers, push.body, 'push');
      if (push.status === 200) {
        const result = push.body.data.tasks[0]!;
        if (result.status !== 'created') throw new Error(`push answered ${result.status}`);
        acked.set(uid, BigInt(result.version!));
      }
      const path = cursor === undefined ? '/api/sync/changes' : `/api/sync/changes?cursor=${encodeURIComponent(cursor)}`;
      const pull = await http.request<{ data: PullData }>('GET', path, { token });
      tally.note(pull.status, pull.headers, pull.body, 'pull');
      if (pull.status === 200 && !pull.body.data.hasMore) cursor = pull.body.data.nextCursor;
      if (push.status !== 200) await sleep(50);
    }
  }

  /** Runs until a push answers 200; returns how long that took. */
  async function timeUntilServing(token: string): Promise<number> {
    const started = Date.now();
    for (let i = 0; ; i++) {
      const res = await http.request('POST', '/api/sync/push', { token, body: { tasks: [{ uid: `probe-${started}-${i}`, op: 'upsert', baseVersion: null, title: 'probe' }] } });
      if (res.status === 200) return Date.now() - started;
      tally.note(res.status, res.headers, res.body, 'probe');
      if (Date.now() - started > 60_000) throw new Error(`not serving 60 s after the database returned: ${res.status} ${res.text}`);
      await sleep(20);
    }
  }

  it('start-up waits (with backoff, logging each retry) for a database that is not up yet', async () => {
    server = new RealServerProcess({
      DATABASE_URL: database.url,
      DATABASE_STARTUP_TIMEOUT_MS: '120000',
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      ...SECRETS,
      SMS_GATEWAY_URL: gateway.url,
      SMS_GATEWAY_API_KEY: API_KEY,
      SMS_GATEWAY_SENDER: 'Faults',
      OTP_RESEND_SECONDS: '0',
      RATE_LIMIT_MAX_REQUESTS: '1000000',
    });
    const starting = server.start(150_000);
    // Start PostgreSQL only once the server has tried and logged that it is waiting.
    for (let waited = 0; !server.log().includes('database not reachable yet'); waited += 100) {
      if (waited > 100_000) throw new Error(`the server did not report waiting:\n${server.log()}`);
      await sleep(100);
    }
    await sleep(1_000);
    expect(server.running).toBe(true);
    await database.start();
    await starting;
    expect(server.log()).toContain('database reachable');
    http = new HttpClient(server.baseUrl);
    for (const phone of ['+15550007001', '+15550007002', '+15550007003']) {
      await http.ok('POST', '/api/auth/send-otp', { body: { phone } });
      const data = await http.ok<{ accessToken: string }>('POST', '/api/auth/verify-otp', { body: { phone, otp: gateway.lastCode(phone) } });
      tokens.push(data.accessToken);
    }
    load = Promise.all(tokens.flatMap((t, i) => [worker(t, 2 * i), worker(t, 2 * i + 1)])).then(() => {});
    await sleep(500);
    expect(tally.count(200)).toBeGreaterThan(0);
  }, 180_000);

  it('survives every backend killed (pg_terminate_backend), again and again, under concurrent pushes and pulls', async () => {
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    let killed = 0;
    try {
      for (let round = 0; round < 15; round++) {
        const res = await admin.query(
          "select pg_terminate_backend(pid) from pg_stat_activity where datname = 'postgres' and pid <> pg_backend_pid() and backend_type = 'client backend'",
        );
        killed += res.rowCount ?? 0;
        await sleep(200);
      }
    } finally {
      await admin.end();
    }
    expect(killed).toBeGreaterThan(0);
    expect(server.running).toBe(true);
    recoveries.afterKills = await timeUntilServing(tokens[0]!);
    console.info(`[database faults] ${killed} backends killed in 15 rounds under load`);
  }, 120_000);

  for (const mode of ['fast', 'immediate'] as const) {
    it(`answers 503 while PostgreSQL is stopped (${mode}), and serves again once it is back, without a restart`, async () => {
      const before = tally.count(503);
      await database.stop(mode);
      await sleep(1_000);
      expect(server.running).toBe(true);
      const ready = await http.request('GET', '/health/ready');
      expect(ready.status).toBe(503);
      const push = await http.request('POST', '/api/sync/push', { token: tokens[1], body: { tasks: [{ uid: `down-${mode}`, op: 'upsert', baseVersion: null, title: 'x' }] } });
      expect(push.status).toBe(503);
      expect((push.body as ErrorEnvelope).error.code).toBe('DATABASE_UNAVAILABLE');
      expect(Number(push.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(tally.count(503)).toBeGreaterThan(before);
      await database.start();
      recoveries[mode] = await timeUntilServing(tokens[1]!);
      expect((await http.request('GET', '/health/ready')).status).toBe(200);
      expect(server.running).toBe(true);
    }, 180_000);
  }

  it('every failure under the faults was a proper 503, and no acknowledged write was lost', async () => {
    stopLoad = true;
    await load;
    expect(tokens).toHaveLength(3);
    expect(tally.improper).toEqual([]);
    console.info(`[database faults] answers under load: ${JSON.stringify(Object.fromEntries(tally.statuses))}`);
    for (const token of tokens) {
      const seen = new Map<string, bigint>();
      let cursor: string | undefined;
      for (;;) {
        const path = cursor === undefined ? '/api/sync/changes?limit=500' : `/api/sync/changes?limit=500&cursor=${encodeURIComponent(cursor)}`;
        const page = await http.ok<PullData>('GET', path, { token });
        for (const type of RECORD_TYPES) for (const r of page[type]) seen.set(r.uid, BigInt(r.version!));
        cursor = page.nextCursor;
        if (!page.hasMore) break;
      }
      const acked = tally.acknowledged.get(token)!;
      expect(acked.size).toBeGreaterThan(0);
      const lost = [...acked].filter(([uid, version]) => seen.get(uid) !== version).map(([uid]) => uid);
      expect(lost).toEqual([]);
    }
    expect(server.running).toBe(true);
  }, 120_000);
});

describe.runIf(canRunThrowawayPostgres())('start-up without a database', () => {
  it('gives up after DATABASE_STARTUP_TIMEOUT_MS with a clear line and exit code 1', async () => {
    const nobody = await ThrowawayPostgres.create();
    try {
      const server = new RealServerProcess({ DATABASE_URL: nobody.url, DATABASE_STARTUP_TIMEOUT_MS: '1500', NODE_ENV: 'test', LOG_LEVEL: 'info', ...SECRETS });
      await expect(server.start(60_000)).rejects.toThrow(/server exited before it was ready/);
      const exit = await server.terminate();
      expect(exit.code).toBe(1);
      expect(server.log()).toContain('database not reachable yet');
      expect(server.log()).toMatch(/did not answer within 1500 ms \(DATABASE_STARTUP_TIMEOUT_MS\)/);
    } finally {
      await nobody.destroy();
    }
  }, 120_000);
});
