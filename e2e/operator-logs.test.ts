import { startStandInSmsGateway, type StandInSmsGateway } from '@calsync/testkit';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, type ScratchDatabase } from './lib/scratch-database.js';
import { freePort, RealServerProcess } from './lib/server-process.js';

// The log lines an operator reads when the SMS gateway or the database fails, from the real server
// process (JSON lines on stdout).

const SECRETS = {
  JWT_SECRET: 'ops-access-secret-0123456789abcdefghijkl',
  JWT_REFRESH_SECRET: 'ops-refresh-secret-0123456789abcdefghij',
  SYNC_CURSOR_SECRET: 'ops-cursor-secret-0123456789abcdefghijk',
};

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** The JSON log lines the process wrote so far. */
function logLines(server: RealServerProcess): LogLine[] {
  return server
    .log()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe('a failed SMS in the real process log', () => {
  let gateway: StandInSmsGateway;
  let server: RealServerProcess;
  afterAll(async () => {
    if (server?.running) await server.terminate();
    await gateway?.close().catch(() => undefined);
  }, 60_000);

  it('names the cause: the gateway answer with its status and reason, then an unreachable gateway', async () => {
    gateway = await startStandInSmsGateway();
    server = new RealServerProcess({
      DATABASE_URL: 'pglite://memory',
      NODE_ENV: 'test',
      ...SECRETS,
      SMS_GATEWAY_URL: gateway.url,
      SMS_GATEWAY_API_KEY: 'ops-gateway-key',
      SMS_GATEWAY_SENDER: 'CalsyncOps',
      OTP_RESEND_SECONDS: '0',
    });
    await server.start();
    const sendOtp = (phone: string) =>
      fetch(`${server.baseUrl}/api/auth/send-otp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ phone }) });

    gateway.status = 503;
    gateway.rejectReason = 'carrier route unavailable';
    expect((await sendOtp('+15550100001')).status).toBe(502);
    await gateway.close();
    expect((await sendOtp('+15550100002')).status).toBe(502);

    await waitFor(() => logLines(server).filter((l) => l.code === 'SMS_FAILED' && l.level === 50).length === 2, 'two SMS failure lines');
    const failures = logLines(server).filter((l) => l.code === 'SMS_FAILED' && l.level === 50);
    expect(failures.map((l) => l.cause)).toEqual([
      'SMS gateway answered 503 Service Unavailable: carrier route unavailable',
      expect.stringMatching(/^SMS gateway unreachable \(.*ECONNREFUSED.*\)$/),
    ]);
    for (const line of failures) {
      expect(line.msg).toBe('SMS_FAILED: the SMS gateway did not accept the message');
      expect(line.reqId).toEqual(expect.any(String));
      expect(line).not.toHaveProperty('err');
    }
    // The request line of each: info, route, 502 and the code.
    await waitFor(() => logLines(server).filter((l) => l.route === '/api/auth/send-otp').length === 2, 'two request lines');
    const requests = logLines(server).filter((l) => l.route === '/api/auth/send-otp');
    expect(requests.map((l) => [l.level, l.status, l.code])).toEqual([
      [30, 502, 'SMS_FAILED'],
      [30, 502, 'SMS_FAILED'],
    ]);
    // Neither the phone nor the key reaches the log.
    expect(server.log()).not.toMatch(/\+15550100001|ops-gateway-key/);
  }, 120_000);
});

/** A TCP relay to PostgreSQL that the test can cut and restore: a database outage on demand. */
class CuttableRelay {
  #server: Server | null = null;
  readonly #sockets = new Set<Socket>();
  constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on('close', () => this.#sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.#server = server;
  }

  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    for (const s of this.#sockets) s.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}

const serverUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!serverUrl)('a database outage in the real process log (PostgreSQL)', () => {
  let database: ScratchDatabase;
  let relay: CuttableRelay;
  let server: RealServerProcess;
  afterAll(async () => {
    if (server?.running) await server.terminate();
    await relay?.cut();
    await database?.drop();
  }, 60_000);

  it('logs the database error once when it goes and once when it is back; /health says what it saw', async () => {
    database = await createScratchDatabase(serverUrl as string);
    const target = new URL(database.url);
    relay = new CuttableRelay(await freePort(), { host: target.hostname, port: Number(target.port || 5432) });
    await relay.open();
    const viaRelay = new URL(database.url);
    viaRelay.hostname = '127.0.0.1';
    viaRelay.port = String(relay.port);
    server = new RealServerProcess({ DATABASE_URL: viaRelay.toString(), NODE_ENV: 'test', ...SECRETS });
    await server.start();
    const get = (path: string) => fetch(`${server.baseUrl}${path}`);

    await relay.cut();
    for (let i = 0; i < 3; i++) expect((await get('/health/ready')).status).toBe(503);
    const health = (await (await get('/health')).json()) as { data: { status: string; database: { status: string; error?: string } } };
    expect(health.data.status).toBe('degraded');
    expect(health.data.database).toMatchObject({ status: 'down', error: expect.stringContaining('ECONNREFUSED') });
    await relay.open();
    expect((await get('/health/ready')).status).toBe(200);

    await waitFor(() => logLines(server).some((l) => l.msg === 'database available again'), 'the recovery line');
    const lines = logLines(server).filter((l) => l.component === 'database');
    // The first failure the process meets names the cut: a new connection refused, or a pooled one
    // (a listener's, a scheduler's) ended by the relay, whichever comes first.
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [40, expect.stringMatching(/^database unavailable: .*(ECONNREFUSED|Connection terminated unexpectedly)/)],
      [30, 'database available again'],
    ]);
    expect(logLines(server).filter((l) => l.level >= 50)).toEqual([]);
    expect(server.log()).not.toMatch(/"stack"/);
  }, 120_000);
});
