import { createSyncClient, MemoryStore, type SyncClient, type WireConflict } from '@calsync/client';
import { FIELD_TABLES, RECORD_TYPES, type RecordType } from '@calsync/domain';
import type { ConflictPageWire, ResolveResponseWire, TokenPairWire } from '@calsync/wire';
import { startStandInSmsGateway, type StandInSmsGateway } from '@calsync/testkit';
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, type ErrorEnvelope } from './lib/http.js';
import { AnswerRecorder, OpenApiChecker, type OpenApiDocument } from './lib/openapi-contract.js';
import { sampleSum, sampleValue } from './lib/metrics-text.js';
import { createScratchDatabase, type ScratchDatabase } from './lib/scratch-database.js';
import { RealServerProcess } from './lib/server-process.js';

// Devices of one phone, each the SDK (@calsync/client) over real HTTP, against the real server
// process: once on embedded PGlite and, when TEST_DATABASE_URL is set, once on a fresh PostgreSQL
// database made for this run. Raw HTTP checks what a client library hides (headers, statuses).

interface DatabaseKind {
  readonly name: string;
  readonly make: () => Promise<ScratchDatabase>;
}

const kinds: DatabaseKind[] = [{ name: 'pglite://memory', make: async () => ({ url: 'pglite://memory', drop: async () => {} }) }];
const serverUrl = process.env.TEST_DATABASE_URL;
if (serverUrl) kinds.push({ name: 'PostgreSQL', make: () => createScratchDatabase(serverUrl) });

const API_KEY = 'e2e-gateway-key-0123456789abcdef';
const SENDER = 'CalsyncE2E';
const SECRETS = {
  JWT_SECRET: 'e2e-access-secret-0123456789abcdefghijkl',
  JWT_REFRESH_SECRET: 'e2e-refresh-secret-0123456789abcdefghij',
  SYNC_CURSOR_SECRET: 'e2e-cursor-secret-0123456789abcdefghijk',
};
const DECIMAL_VERSION = /^(0|[1-9][0-9]*)$/;

/** The error code of an error envelope. */
const codeOf = (body: unknown): string => (body as ErrorEnvelope).error.code;

/** A pulled record as the SDK shows it: uid, version and the type's fields (stamps left out). */
function asLocal(type: RecordType, record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { uid: record.uid, version: record.version };
  for (const f of FIELD_TABLES[type]) out[f.name] = record[f.name] ?? null;
  return out;
}

/** Everything a device shows, per type, in uid order. */
const snapshot = (c: SyncClient) => Object.fromEntries(RECORD_TYPES.map((t) => [t, c[t].list()]));

/** The server's record pages of one cursorless pull of `limit` per page. */
async function fullPull(http: HttpClient, token: string, limit: number) {
  const pages: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (;;) {
    const q = new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) });
    const page = await http.ok<Record<string, unknown> & { nextCursor: string; hasMore: boolean }>('GET', `/api/sync/changes?${q}`, { token });
    pages.push(page);
    cursor = page.nextCursor;
    if (!page.hasMore) return pages;
  }
}

/** Live records of pages, as the SDK would show them, per type, in uid order. */
function liveOf(pages: Record<string, unknown>[]) {
  return Object.fromEntries(
    RECORD_TYPES.map((t) => {
      const byUid = new Map<string, Record<string, unknown>>();
      for (const page of pages) for (const r of page[t] as Record<string, unknown>[]) {
        if (r.deleted === null) byUid.set(r.uid as string, asLocal(t, r));
        else byUid.delete(r.uid as string);
      }
      return [t, [...byUid.values()].sort((a, b) => ((a.uid as string) < (b.uid as string) ? -1 : 1))];
    }),
  );
}

describe.each(kinds)('devices of one user, each the SDK, against the real server process on $name', ({ make }) => {
  let gateway: StandInSmsGateway;
  let database: ScratchDatabase | undefined;
  let server: RealServerProcess | undefined;
  let http: HttpClient;
  let a: SyncClient;
  let b: SyncClient;
  const bStore = new MemoryStore();
  const phone = `+1555${String(randomInt(1_000_000, 9_999_999))}`;
  const ids = { work: 'cal-work', e1: 'ev-standup', e2: 'ev-review', task: 'task-trip', sub: 'task-trip-tickets', rem: 'rem-trip' };
  const conflictsSeenByB: WireConflict[] = [];
  let conflict: WireConflict;
  /** Every answer of the run (the SDK's and the raw checks'), checked against the served OpenAPI document at the end. */
  const recorder = new AnswerRecorder();

  const device = (name: string, store = new MemoryStore()): SyncClient =>
    createSyncClient({ baseUrl: server!.baseUrl, store, device: { platform: 'e2e', name }, fetch: recorder.fetch() });
  const signIn = async (c: SyncClient) => {
    await c.auth.sendOtp(phone, 'E2E');
    return c.auth.verifyOtp(phone, gateway.lastCode(phone));
  };

  beforeAll(async () => {
    gateway = await startStandInSmsGateway();
    database = await make();
    server = new RealServerProcess({
      DATABASE_URL: database.url,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      ...SECRETS,
      SMS_GATEWAY_URL: gateway.url,
      SMS_GATEWAY_API_KEY: API_KEY,
      SMS_GATEWAY_SENDER: SENDER,
      OTP_RESEND_SECONDS: '0',
    });
    await server.start();
    http = new HttpClient(server.baseUrl, recorder);
    a = device('laptop');
    b = device('phone', bStore);
    await a.open();
    await b.open();
    b.conflicts.subscribe((c) => conflictsSeenByB.push(...c));
  }, 120_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    if (server?.running) await server.terminate();
    await gateway?.close();
    await database?.drop();
  }, 60_000);

  it('1. both devices sign in by SMS code and bootstrap: each holds the default calendar "Personal"', async () => {
    const signedInA = await signIn(a);
    const sms = gateway.requests.at(-1);
    expect(sms?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(JSON.parse(sms?.body ?? '{}')).toMatchObject({ from: SENDER, to: phone });
    expect(signedInA).toMatchObject({ isNewUser: true, user: { phone }, device: { current: true, platform: 'e2e', name: 'laptop' } });
    const signedInB = await signIn(b);
    expect(signedInB.isNewUser).toBe(false);
    expect(signedInB.user.id).toBe(signedInA.user.id);
    expect(signedInB.device?.uid).not.toBe(signedInA.device?.uid);

    for (const c of [a, b]) {
      expect(c.calendars.list()).toEqual([expect.objectContaining({ name: 'Personal', isDefault: true, version: expect.stringMatching(DECIMAL_VERSION) })]);
      expect(c.status).toMatchObject({ signedIn: true, pending: 0, failed: 0, lastError: null });
    }
    const raw = await http.request('GET', '/api/sync/changes', { token: a.auth.accessToken()! });
    expect(raw.headers.get('etag')).toBeTruthy();
    expect(raw.headers.get('cache-control')).toContain('no-cache');
    expect(snapshot(b)).toEqual(snapshot(a));
  });

  it('2. A writes a calendar, events, a task with a subtask and a reminder; B gets them all', async () => {
    await a.calendars.put({ uid: ids.work, name: 'Work', color: '#3366FF' });
    await a.events.put({ uid: ids.e1, calendarUid: ids.work, title: 'Standup', startTime: '2030-01-07T09:00:00.000Z', endTime: '2030-01-07T09:15:00.000Z', rrule: 'FREQ=WEEKLY;COUNT=4;BYDAY=MO' });
    await a.events.put({ uid: ids.e2, calendarUid: ids.work, title: 'Review', startTime: '2030-01-08T14:00:00.000Z', endTime: '2030-01-08T15:00:00.000Z' });
    await a.tasks.put({ uid: ids.task, title: 'Plan the trip', priority: 2 });
    await a.tasks.put({ uid: ids.sub, title: 'Buy tickets', parentTaskUid: ids.task });
    await a.reminders.put({ uid: ids.rem, taskUid: ids.task, minutesBefore: 30 });
    expect(a.status.pending).toBe(6);
    await a.sync();
    expect(a.status).toMatchObject({ pending: 0, failed: 0 });
    for (const t of RECORD_TYPES) for (const r of a[t].list()) expect(r.version).toMatch(DECIMAL_VERSION);
    await b.sync();
    expect(b.events.get(ids.e1)).toMatchObject({ title: 'Standup', calendarUid: ids.work, rrule: 'FREQ=WEEKLY;COUNT=4;BYDAY=MO' });
    expect(b.tasks.get(ids.sub)).toMatchObject({ title: 'Buy tickets', parentTaskUid: ids.task });
    expect(snapshot(b)).toEqual(snapshot(a));
  });

  it('3. offline edits on both: A renames the event first, B edits it and deletes another; B\'s push surfaces a conflict', async () => {
    await a.events.put({ uid: ids.e1, title: 'Standup (A)' });
    await b.events.put({ uid: ids.e1, title: 'Standup (B)' });
    await b.events.remove(ids.e2);
    expect(b.events.get(ids.e2)).toBeUndefined();
    await a.sync();
    await b.sync();
    expect(b.status).toMatchObject({ pending: 0, failed: 0 });
    expect(conflictsSeenByB).toHaveLength(1);
    conflict = conflictsSeenByB[0]!;
    expect(conflict).toMatchObject({ entityType: 'EVENT', entityUid: ids.e1, resolvedAt: null, loserSnapshot: { title: 'Standup (A)' } });
    expect(b.events.get(ids.e1)).toMatchObject({ title: 'Standup (B)', version: conflict.winnerVersion });
    await a.sync();
    expect(a.events.get(ids.e1)?.title).toBe('Standup (B)');
    expect(a.events.get(ids.e2)).toBeUndefined();
  });

  it('4. A lists the conflict and restores it; a second resolve is 409; both devices pull A\'s title back', async () => {
    expect((await a.conflicts.list()).map((c) => c.conflictId)).toEqual([conflict.conflictId]);
    const restored: ResolveResponseWire = await a.conflicts.restore(conflict.conflictId);
    expect(restored.record).toMatchObject({ entityType: 'EVENT', uid: ids.e1, version: expect.stringMatching(DECIMAL_VERSION) });
    const again = await http.request('POST', `/api/sync/conflicts/${conflict.conflictId}/resolve`, { token: b.auth.accessToken()!, body: { action: 'dismiss' } });
    expect(again.status).toBe(409);
    expect(codeOf(again.body)).toBe('CONFLICT_RESOLVED');
    expect(await b.conflicts.list()).toEqual([]);
    await a.sync();
    await b.sync();
    for (const c of [a, b]) expect(c.events.get(ids.e1)).toMatchObject({ title: 'Standup (A)', version: restored.record!.version });
  });

  it('5. both devices hold exactly the live records of a fresh cursorless pull, paged one by one', async () => {
    const pages = await fullPull(http, a.auth.accessToken()!, 1);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages[0]!.cursorReset).toBe(true);
    for (const t of RECORD_TYPES) {
      const seen = pages.flatMap((p) => (p[t] as { version: string }[]).map((r) => BigInt(r.version)));
      expect(seen).toEqual([...seen].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
    }
    const server = liveOf(pages);
    expect((server.calendars as { name: string }[]).map((c) => c.name).sort()).toEqual(['Personal', 'Work']);
    expect(snapshot(a)).toEqual(server);
    expect(snapshot(b)).toEqual(server);
  });

  it('6. a third device signs in later and bootstraps to the same state', async () => {
    const c = device('tablet');
    await c.open();
    await signIn(c);
    expect(c.status).toMatchObject({ signedIn: true, pending: 0 });
    expect(snapshot(c)).toEqual(snapshot(a));
    await c.close();
  });

  it('7. logout ends B\'s session on the server and wipes its store', async () => {
    const token = b.auth.accessToken()!;
    await b.tasks.put({ title: 'unsent, then signed out' });
    await b.auth.logout();
    expect(b.status).toMatchObject({ signedIn: false, pending: 0 });
    for (const t of RECORD_TYPES) expect(b[t].list()).toEqual([]);
    const left = await bStore.load();
    expect(left).toEqual({ records: [], outbox: [], meta: {} });
    expect((await http.request('GET', '/api/sync/changes', { token })).status).toBe(401);
  });

  it('8. refresh rotation and replay, stats, metrics, OpenAPI, request ids, SIGTERM', async () => {
    await http.ok('POST', '/api/auth/send-otp', { body: { phone } });
    const raw = await http.ok<{ accessToken: string; refreshToken: string }>('POST', '/api/auth/verify-otp', {
      body: { phone, otp: gateway.lastCode(phone), device: { uid: 'raw-device', platform: 'curl', name: 'raw' } },
    });
    const rotated = await http.ok<TokenPairWire>('POST', '/api/auth/refresh', { body: { refreshToken: raw.refreshToken, deviceUid: 'raw-device' } });
    expect(rotated.refreshToken).not.toBe(raw.refreshToken);
    const claims = JSON.parse(Buffer.from(rotated.accessToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(claims).toMatchObject({ typ: 'access', did: 'raw-device' });
    const replay = await http.request('POST', '/api/auth/refresh', { body: { refreshToken: raw.refreshToken, deviceUid: 'raw-device' } });
    expect(replay.status).toBe(401);
    expect(codeOf(replay.body)).toBe('REFRESH_INVALID');
    expect((await http.request('GET', '/api/sync/changes', { token: rotated.accessToken })).status).toBe(401);

    const stats = await http.ok<Record<string, unknown>>('GET', '/api/users/stats', { token: a.auth.accessToken()! });
    expect(stats).toMatchObject({ calendars: 2, events: 1, tasks: 2, reminders: 1, unresolvedConflicts: 0 });
    const conflicts = await http.ok<ConflictPageWire>('GET', '/api/sync/conflicts', { token: a.auth.accessToken()! });
    expect(conflicts).toEqual({ conflicts: [], hasMore: false, nextAfterId: null });

    const metrics = await http.request<string>('GET', '/metrics');
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    expect(sampleValue(metrics.text, 'calsync_sync_conflicts_created_total{entity_type="EVENT"}')).toBe(1);
    expect(sampleValue(metrics.text, 'calsync_sync_push_items_total{type="events",status="conflict"}')).toBe(1);
    // Every push the engine answered was planned in exactly one unit of work (group commit): the
    // group sizes add up to the push requests answered 200, and the one push of the sign-up, which
    // makes the user's default calendar through the engine.
    const answeredPushes = sampleSum(metrics.text, 'http_request_duration_seconds_count', { route: '/api/sync/push', status_code: '200' });
    expect(answeredPushes).toBeGreaterThan(0);
    expect(sampleValue(metrics.text, 'calsync_sync_push_group_size_sum')).toBe(answeredPushes + 1);
    expect(sampleValue(metrics.text, 'calsync_sync_push_group_size_count')).toBeLessThanOrEqual(answeredPushes + 1);
    const docs = await http.request<{ openapi: string; paths: Record<string, unknown> }>('GET', '/api-docs-json');
    expect(docs.body.openapi).toMatch(/^3\./);
    expect(Object.keys(docs.body.paths)).toEqual(expect.arrayContaining(['/api/sync/push', '/api/sync/changes', '/api/auth/verify-otp']));
    const echoed = await http.request('GET', '/health', { headers: { 'x-request-id': 'e2e-trace-42' } });
    expect(echoed.headers.get('x-request-id')).toBe('e2e-trace-42');
    expect(echoed.body).toMatchObject({ success: true, data: { status: 'healthy' } });
    const unknown = await http.request('GET', '/api/no-such-route');
    expect(unknown.status).toBe(404);

    // Every answer of this run (statuses, bodies, error codes) against the document the server serves.
    const { problems, seen } = new OpenApiChecker(docs.body as unknown as OpenApiDocument).checkAll(recorder.answers);
    expect(problems).toEqual([]);
    expect(recorder.answers.length).toBeGreaterThan(30);
    expect([...seen.keys()]).toEqual(expect.arrayContaining(['sendOtp', 'verifyOtp', 'pushChanges', 'pullChanges', 'listConflicts', 'resolveConflict', 'refreshTokens', 'logout', 'getStats', 'getMetrics']));

    for (const secret of [API_KEY, SECRETS.JWT_SECRET, SECRETS.JWT_REFRESH_SECRET, SECRETS.SYNC_CURSOR_SECRET]) expect(server!.log()).not.toContain(secret);
    const exit = await server!.terminate();
    expect(exit, server!.log()).toMatchObject({ code: 0, signal: null });
    expect(exit.elapsedMs).toBeLessThan(10_000);
  });
});

describe.each(kinds)('an access token that expires mid-sync, on $name', ({ make }) => {
  let gateway: StandInSmsGateway;
  let database: ScratchDatabase | undefined;
  let server: RealServerProcess | undefined;

  beforeAll(async () => {
    gateway = await startStandInSmsGateway();
    database = await make();
    server = new RealServerProcess({
      DATABASE_URL: database.url, NODE_ENV: 'test', LOG_LEVEL: 'warn', ...SECRETS,
      SMS_GATEWAY_URL: gateway.url, SMS_GATEWAY_API_KEY: API_KEY, SMS_GATEWAY_SENDER: SENDER,
      JWT_ACCESS_EXPIRES_IN: '2s',
    });
    await server.start();
  }, 120_000);

  afterAll(async () => {
    if (server?.running) await server.terminate();
    await gateway?.close();
    await database?.drop();
  }, 60_000);

  it('is refreshed once with the device uid and the request repeated once; the write arrives', async () => {
    const calls: string[] = [];
    const recording = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      calls.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
      return fetch(input, init);
    }) as typeof fetch;
    const c = createSyncClient({ baseUrl: server!.baseUrl, store: new MemoryStore(), device: { platform: 'e2e', name: 'expiring' }, fetch: recording });
    await c.open();
    const phone = `+1556${String(randomInt(1_000_000, 9_999_999))}`;
    await c.auth.sendOtp(phone);
    await c.auth.verifyOtp(phone, gateway.lastCode(phone));
    const first = c.auth.accessToken();
    const uid = await c.tasks.put({ title: 'written while the token expires' });
    await new Promise((r) => setTimeout(r, 3_000)); // the 2 s access token is now expired
    calls.length = 0;
    await c.sync();
    expect(calls).toEqual(['POST /api/sync/push', 'POST /api/auth/refresh', 'POST /api/sync/push', 'GET /api/sync/changes']);
    expect(c.auth.accessToken()).not.toBe(first);
    expect(c.tasks.get(uid)?.version).toMatch(DECIMAL_VERSION);
    expect(c.status).toMatchObject({ signedIn: true, pending: 0, lastError: null });
    await c.close();
  });
});
