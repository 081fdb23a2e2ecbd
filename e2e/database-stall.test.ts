import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, type ErrorEnvelope } from './lib/http.js';
import { createScratchDatabase, type ScratchDatabase } from './lib/scratch-database.js';
import { TcpRelay } from './lib/tcp-relay.js';
import { startTestServer, type TestServer } from './lib/test-server.js';

// The real server process reaches PostgreSQL through a TCP relay that the test stalls in the middle
// of the load (nothing forwarded, no error: a network that drops packets). Every request must
// answer within DATABASE_STATEMENT_TIMEOUT_MS + 1 s, as 200 or 503 DATABASE_UNAVAILABLE, and the
// service must serve again by itself once the relay forwards again.

const STATEMENT_TIMEOUT_MS = 3000;
const CONNECT_TIMEOUT_MS = 1000;
const STALL_MS = 8000;
const serverUrl = process.env.TEST_DATABASE_URL;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Answer {
  readonly at: number;
  readonly ms: number;
  readonly status: number;
  readonly code: string | null;
}

describe.runIf(serverUrl)('a stalled network to PostgreSQL', () => {
  let database: ScratchDatabase;
  let relay: TcpRelay;
  let test: TestServer;
  let http: HttpClient;
  const tokens: string[] = [];

  beforeAll(async () => {
    database = await createScratchDatabase(serverUrl!);
    const target = new URL(database.url);
    relay = await TcpRelay.start({ host: target.hostname, port: Number(target.port || 5432) });
    const viaRelay = new URL(database.url);
    viaRelay.hostname = '127.0.0.1';
    viaRelay.port = String(relay.port);
    test = await startTestServer('stall', {
      DATABASE_URL: viaRelay.toString(),
      DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      DATABASE_POOL_MAX: '4',
      SESSION_CACHE_SECONDS: '0',
      RATE_LIMIT_MAX_REQUESTS: '1000000',
    });
    http = new HttpClient(test.server.baseUrl);
    for (const phone of ['+15550009101', '+15550009102', '+15550009103']) {
      await http.ok('POST', '/api/auth/send-otp', { body: { phone } });
      tokens.push((await http.ok<{ accessToken: string }>('POST', '/api/auth/verify-otp', { body: { phone, otp: test.gateway.lastCode(phone) } })).accessToken);
    }
  }, 180_000);

  afterAll(async () => {
    await test?.stop();
    await relay?.close();
    await database?.drop();
  }, 60_000);

  /** One timed request: a push or a pull (alternating), answered or failed, never longer than the test's own 30 s guard. */
  async function timed(token: string, i: number): Promise<Answer> {
    const started = Date.now();
    const res =
      i % 2 === 0
        ? await http.request<ErrorEnvelope>('POST', '/api/sync/push', { token, body: { tasks: [{ uid: `s-${i}-${started}`, op: 'upsert', baseVersion: null, title: 'stall' }] } })
        : await http.request<ErrorEnvelope>('GET', '/api/sync/changes?limit=5', { token });
    const code = res.status === 200 ? null : (res.body.error?.code ?? 'none');
    return { at: started, ms: Date.now() - started, status: res.status, code };
  }

  it('answers every request within the statement timeout + 1 s while stalled, and serves again by itself', async () => {
    const answers: Answer[] = [];
    let stop = false;
    const loops = tokens.map(async (token, w) => {
      for (let i = w; !stop; i += tokens.length) {
        answers.push(await timed(token, i));
        await sleep(50);
      }
    });
    await sleep(1500);
    const stalledAt = Date.now();
    relay.stall();
    await sleep(STALL_MS);
    relay.resume();
    const resumedAt = Date.now();
    // Served again: the first 200 of a request that started after the relay resumed.
    let recoveredAt = 0;
    for (let waited = 0; recoveredAt === 0 && waited < 60_000; waited += 100) {
      recoveredAt = answers.find((a) => a.at >= resumedAt && a.status === 200)?.at ?? 0;
      if (recoveredAt === 0) await sleep(100);
    }
    await sleep(2000);
    stop = true;
    await Promise.all(loops);

    const duringStall = answers.filter((a) => a.at + a.ms >= stalledAt && a.at <= resumedAt);
    const slowest = Math.max(...answers.map((a) => a.ms));
    const failed = duringStall.filter((a) => a.status !== 200);
    console.info(
      `[database stall] ${answers.length} requests; ${duringStall.length} met the ${STALL_MS} ms stall, ${failed.length} answered 503; slowest ${slowest} ms ` +
        `(bound ${STATEMENT_TIMEOUT_MS + 1000} ms); first success ${recoveredAt - resumedAt} ms after the relay resumed`,
    );
    for (const a of answers) {
      expect(a.ms, `a request took ${a.ms} ms`).toBeLessThanOrEqual(STATEMENT_TIMEOUT_MS + 1000);
      if (a.status !== 200) expect([a.status, a.code]).toEqual([503, 'DATABASE_UNAVAILABLE']);
    }
    expect(failed.length).toBeGreaterThan(0);
    expect(recoveredAt).toBeGreaterThan(0);
    // After recovery every request succeeds again.
    const after = answers.filter((a) => a.at >= recoveredAt);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((a) => a.status === 200)).toBe(true);
    expect((await http.request('GET', '/health/ready')).status).toBe(200);
  });
});
