import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { asUser, build } from '../test-support/index.js';

// What an operator gets from the service: log lines, /health and /metrics.

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** A pino logger at debug that keeps every line it writes, parsed. */
function capturingLogger() {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n')) if (text.trim() !== '') lines.push(JSON.parse(text) as LogLine);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

const DEBUG = 20;
const INFO = 30;
const WARN = 40;

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('request log', () => {
  it('writes one info line per request with method, route, status, duration, request id and user id', async () => {
    const { logger, lines } = capturingLogger();
    ({ app } = await build({ standIns: ['engine', 'sign-in'], logger }));
    await app.inject({ method: 'GET', url: '/api/sync/conflicts?limit=5', headers: { ...asUser(7), 'x-request-id': 'req-abc' } });
    const requestLines = lines.filter((l) => l.route !== undefined);
    expect(requestLines).toEqual([
      expect.objectContaining({ level: INFO, reqId: 'req-abc', method: 'GET', route: '/api/sync/conflicts', status: 200, userId: 7, durationMs: expect.any(Number), msg: 'GET /api/sync/conflicts 200' }),
    ]);
    // Fastify's own "incoming request" / "request completed" lines are gone.
    expect(lines.filter((l) => l.msg === 'incoming request' || l.msg === 'request completed')).toEqual([]);
  });

  it('names the error code of a failure and logs no user for an anonymous caller', async () => {
    const { logger, lines } = capturingLogger();
    ({ app } = await build({ standIns: ['engine', 'sign-in'], logger }));
    await app.inject({ method: 'GET', url: '/api/sync/conflicts' });
    await app.inject({ method: 'GET', url: '/nowhere' });
    const requestLines = lines.filter((l) => l.route !== undefined);
    expect(requestLines.map((l) => [l.level, l.route, l.status, l.code, l.userId])).toEqual([
      [INFO, '/api/sync/conflicts', 401, 'UNAUTHORIZED', undefined],
      [INFO, 'unmatched', 404, 'NOT_FOUND', undefined],
    ]);
  });

  it('logs probes and scrapes at debug only', async () => {
    const { logger, lines } = capturingLogger();
    ({ app } = await build({ standIns: ['engine', 'sign-in'], logger }));
    for (const url of ['/health', '/health/live', '/health/ready', '/metrics']) await app.inject({ method: 'GET', url });
    const requestLines = lines.filter((l) => l.route !== undefined);
    expect(requestLines.map((l) => [l.level, l.route])).toEqual([
      [DEBUG, '/health'],
      [DEBUG, '/health/live'],
      [DEBUG, '/health/ready'],
      [DEBUG, '/metrics'],
    ]);
  });
});

describe('database outage', () => {
  it('logs the database error once when it goes away and once when it is back; /health reports what it saw', async () => {
    const { logger, lines } = capturingLogger();
    let failure: Error | null = null;
    const readiness = async () => {
      if (failure) throw failure;
      return true;
    };
    ({ app } = await build({ standIns: ['engine', 'sign-in'], logger, readiness }));
    const health = async () => (await app!.inject({ method: 'GET', url: '/health' })).json().data;
    expect(await health()).toMatchObject({ status: 'healthy', database: { status: 'unknown', checkedAt: null } });

    expect((await app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
    failure = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    for (let i = 0; i < 3; i++) expect((await app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(503);
    expect(await health()).toMatchObject({ status: 'degraded', database: { status: 'down', error: 'connect ECONNREFUSED 127.0.0.1:5432' } });
    failure = null;
    expect((await app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
    expect(await health()).toMatchObject({ status: 'healthy', database: { status: 'up' } });

    const databaseLines = lines.filter((l) => l.component === 'database');
    expect(databaseLines.map((l) => [l.level, l.msg])).toEqual([
      [WARN, 'database unavailable: connect ECONNREFUSED 127.0.0.1:5432'],
      [INFO, 'database available again'],
    ]);
    // No error-level line and no stack for a failing probe.
    expect(lines.filter((l) => l.level > WARN)).toEqual([]);
    expect(JSON.stringify(lines)).not.toContain('"stack"');
  });
});

describe('CORS', () => {
  it('lets a browser app read the request id, Retry-After and the rate-limit headers', async () => {
    ({ app } = await build({ standIns: ['engine', 'sign-in'], env: { RATE_LIMIT_MAX_REQUESTS: '1' } }));
    const headers = { origin: 'http://app.example', ...asUser(7) };
    await app.inject({ method: 'GET', url: '/api/sync/conflicts', headers });
    const limited = await app.inject({ method: 'GET', url: '/api/sync/conflicts', headers });
    expect(limited.statusCode).toBe(429);
    const exposed = String(limited.headers['access-control-expose-headers']).split(',').map((h) => h.trim().toLowerCase());
    for (const name of ['x-request-id', 'retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(exposed).toContain(name);
    for (const name of ['retry-after', 'x-ratelimit-limit', 'x-request-id']) expect(limited.headers[name]).toBeDefined();
  });
});

describe('/metrics for the alert rules', () => {
  it('counts errors by route, status class and code, and labels the request histogram with the status class', async () => {
    ({ app } = await build({ standIns: ['engine', 'sign-in'], env: { RATE_LIMIT_MAX_REQUESTS: '1' } }));
    const headers = asUser(7);
    await app.inject({ method: 'GET', url: '/api/sync/conflicts', headers });
    await app.inject({ method: 'GET', url: '/api/sync/conflicts', headers });
    await app.inject({ method: 'GET', url: '/api/sync/conflicts', headers });
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(text).toContain('calsync_http_errors_total{route="/api/sync/conflicts",status_class="4xx",code="RATE_LIMITED"} 2');
    expect(text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/api\/sync\/conflicts"[^}]*status_class="2xx"[^}]*\} 1/);
    expect(text).toMatch(/http_request_duration_seconds_bucket\{le="2",[^}]*\}/);
    expect(text).toMatch(/^calsync_memory_limit_bytes \d+/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds [\d.e-]+/m);
    expect(text).toContain('calsync_database_up 1');
  });

  it('shows the database down, the connections and the PGlite folder when the database gauges are given', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'calsync-metrics-'));
    try {
      await writeFile(join(dir, 'a'), Buffer.alloc(1000));
      await writeFile(join(dir, 'b'), Buffer.alloc(234));
      const gauges = { connectionStats: () => ({ inUse: 3, waiting: 2, total: 7 }), dataDirectory: dir };
      ({ app } = await build({ standIns: ['engine', 'sign-in'], readiness: async () => false, databaseGauges: gauges }));
      const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(text).toContain('calsync_database_up 0');
      expect(text).toContain('calsync_db_connections_in_use 3');
      expect(text).toContain('calsync_db_connections_waiting 2');
      expect(text).toContain('calsync_db_connections_open 7');
      expect(text).toContain('calsync_pglite_data_bytes 1234');
      const size = Number(/^calsync_data_volume_size_bytes (\d+)/m.exec(text)?.[1]);
      const available = Number(/^calsync_data_volume_available_bytes (\d+)/m.exec(text)?.[1]);
      expect(size).toBeGreaterThan(0);
      expect(available).toBeGreaterThan(0);
      expect(available).toBeLessThanOrEqual(size);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('replayed refresh tokens', () => {
  it('are counted and logged at warn with whose session ended', async () => {
    const { logger, lines } = capturingLogger();
    ({ app } = await build({ standIns: ['engine', 'sign-in'], logger }));
    app.opsEvents.refreshReplayed({ userId: 42, deviceUid: 'phone-1' });
    app.opsEvents.refreshReplayed({ userId: 43, deviceUid: null });
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(text).toContain('calsync_refresh_token_replays_total 2');
    expect(lines.filter((l) => l.component === 'auth').map((l) => [l.level, l.userId, l.deviceUid, l.msg])).toEqual([
      [WARN, 42, 'phone-1', 'refresh token replayed: the session was ended'],
      [WARN, 43, null, 'refresh token replayed: the session was ended'],
    ]);
  });
});

describe('ops/ files read only metrics the service exports', () => {
  const root = new URL('../../../', import.meta.url);
  const alerts = parse(readFileSync(new URL('ops/prometheus/alerts.yml', root), 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] };
  const dashboard = JSON.parse(readFileSync(new URL('ops/grafana/calsync.json', root), 'utf8')) as { panels: { targets: { expr: string }[] }[] };
  const exprs = [...alerts.groups.flatMap((g) => g.rules.map((r) => r.expr)), ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr))];
  const names = new Set(exprs.flatMap((e) => e.match(/\b(?:calsync|http_request|process|nodejs)_[a-z0-9_]+/g) ?? []));

  it('every metric name in the alert rules and the dashboard is on /metrics (with a PGlite folder)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'calsync-metrics-'));
    try {
      ({ app } = await build({ standIns: ['engine', 'sign-in'], databaseGauges: { connectionStats: () => ({ inUse: 0, waiting: 0, total: 1 }), dataDirectory: dir } }));
      const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
      const declared = (name: string) => text.includes(`# TYPE ${name} `) || text.includes(`# TYPE ${name.replace(/_(bucket|count|sum)$/, '')} histogram`);
      expect(names.size).toBeGreaterThan(15);
      expect([...names].filter((n) => !declared(n))).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('has the four thresholds of the specification', () => {
    const byName = new Map(alerts.groups.flatMap((g) => g.rules.map((r) => [r.alert, r.expr.replace(/\s+/g, ' ').trim()] as const)));
    expect(byName.get('CalsyncHighErrorRate')).toMatch(/status_class="5xx".*> 0\.05$/);
    expect(byName.get('CalsyncSlowResponses')).toMatch(/histogram_quantile\(0\.95,.*> 2$/);
    expect(byName.get('CalsyncHighMemory')).toMatch(/> 0\.8$/);
    expect(byName.get('CalsyncDiskAlmostFull')).toMatch(/> 0\.9$/);
    for (const name of ['CalsyncNotReady', 'CalsyncSmsFailing', 'CalsyncRefreshTokenReplays', 'CalsyncRateLimitRejections']) expect(byName.has(name)).toBe(true);
  });
});

describe('Swagger UI over plain http', () => {
  it('serves the docs page and its assets without upgrade-insecure-requests; the API keeps helmet defaults', async () => {
    ({ app } = await build({ standIns: ['engine', 'sign-in'] }));
    const page = await app.inject({ method: 'GET', url: '/api-docs/' });
    expect(page.statusCode).toBe(200);
    const script = await app.inject({ method: 'GET', url: '/api-docs/static/swagger-ui-bundle.js' });
    expect(script.statusCode).toBe(200);
    for (const res of [page, script]) {
      const policy = String(res.headers['content-security-policy']);
      expect(policy).toContain("default-src 'self'");
      expect(policy).not.toContain('upgrade-insecure-requests');
    }
    const api = await app.inject({ method: 'GET', url: '/health' });
    expect(String(api.headers['content-security-policy'])).toContain('upgrade-insecure-requests');
  });
});
