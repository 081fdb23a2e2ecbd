import { startStandInSmsGateway, type StandInSmsGateway } from '@calsync/testkit';
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2eDevice, allRecords, liveSnapshot, stateFromPages, type SignInData } from './lib/device.js';
import { HttpClient, type ErrorEnvelope } from './lib/http.js';
import { AnswerRecorder, OpenApiChecker, type OpenApiDocument } from './lib/openapi-contract.js';
import { sampleValue } from './lib/metrics-text.js';
import { createScratchDatabase, type ScratchDatabase } from './lib/scratch-database.js';
import { RealServerProcess } from './lib/server-process.js';
import { DECIMAL_VERSION, RECORD_TYPES, type PullData, type PushData, type WireConflict } from './lib/wire.js';

// The client behaviour of docs/protocol.md, played by two devices of one phone
// against the real server process over real HTTP; once on embedded PGlite and, when
// TEST_DATABASE_URL is set, once on a fresh PostgreSQL database made for this run.

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

/** The error code of an error envelope. */
const codeOf = (body: unknown): string => (body as ErrorEnvelope).error.code;

describe.each(kinds)('two devices against the real server process on $name', ({ make }) => {
  let gateway: StandInSmsGateway;
  let database: ScratchDatabase | undefined;
  let server: RealServerProcess | undefined;
  let http: HttpClient;
  let a: E2eDevice;
  let b: E2eDevice;
  let signInA: SignInData;
  /** Versions of every write the server acknowledged, in the order the writes happened. */
  const writeVersions: bigint[] = [];
  const note = (...versions: (string | null | undefined)[]): void => {
    for (const v of versions) {
      expect(v).toMatch(DECIMAL_VERSION);
      writeVersions.push(BigInt(v as string));
    }
  };
  const phone = `+1555${String(randomInt(1_000_000, 9_999_999))}`;
  const ids = { work: 'cal-work', e1: 'ev-standup', e2: 'ev-review', task: 'task-trip', sub: 'task-trip-tickets', rem: 'rem-trip' };
  let conflict: WireConflict;
  /** Every answer of the run, checked against the served OpenAPI document at the end. */
  const recorder = new AnswerRecorder();
  let restoreVersion: string;

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
    a = new E2eDevice(http, phone, 'device-a-laptop', 'web');
    b = new E2eDevice(http, phone, 'device-b-phone', 'ios');
  }, 120_000);

  afterAll(async () => {
    if (server?.running) await server.terminate();
    await gateway?.close();
    await database?.drop();
  }, 60_000);

  it('1. both devices sign in by SMS code and bootstrap with a cursorless pull holding "Personal"', async () => {
    const sent = await http.request<{ success: boolean; data: { expiresInSeconds: number; resendAfterSeconds: number } }>('POST', '/api/auth/send-otp', { body: { phone } });
    expect(sent.status).toBe(200);
    expect(sent.body.success).toBe(true);
    expect(sent.body.data.expiresInSeconds).toBeGreaterThan(0);
    const sms = gateway.requests.at(-1);
    expect(sms?.method).toBe('POST');
    expect(sms?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(JSON.parse(sms?.body ?? '{}')).toMatchObject({ from: SENDER, to: phone });

    signInA = await a.signIn(gateway);
    expect(signInA.isNewUser).toBe(true);
    expect(signInA.user.phone).toBe(phone);
    expect(signInA.device).toMatchObject({ uid: a.uid, current: true });
    const signInB = await b.signIn(gateway);
    expect(signInB.isNewUser).toBe(false);
    expect(signInB.user.id).toBe(signInA.user.id);
    expect(signInB.device).toMatchObject({ uid: b.uid, current: true });
    expect(b.refreshToken).not.toBe(a.refreshToken);

    const raw = await http.request('GET', '/api/sync/changes', { token: a.accessToken });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('etag')).toBeTruthy();
    expect(raw.headers.get('cache-control')).toContain('no-cache');

    for (const device of [a, b]) {
      const pages = await device.pull();
      expect(pages[0]?.cursorReset).toBe(true);
      expect(pages.at(-1)?.hasMore).toBe(false);
      const calendars = [...device.local.calendars.values()];
      expect(calendars).toHaveLength(1);
      expect(calendars[0]).toMatchObject({ name: 'Personal', isDefault: true, deleted: null });
      expect(calendars[0]?.version).toMatch(DECIMAL_VERSION);
      expect(device.local.events.size + device.local.tasks.size + device.local.reminders.size).toBe(0);
    }
    expect(b.snapshot()).toEqual(a.snapshot());
  });

  it('2. A pushes a calendar, two events, a task with a subtask and a reminder; B pulls them', async () => {
    a.upsert('calendars', ids.work, { name: 'Work', color: '#3366FF' });
    a.upsert('events', ids.e1, { calendarUid: ids.work, title: 'Standup', startTime: '2030-01-07T09:00:00.000Z', endTime: '2030-01-07T09:15:00.000Z', rrule: 'FREQ=WEEKLY;COUNT=4;BYDAY=MO' });
    a.upsert('events', ids.e2, { calendarUid: ids.work, title: 'Review', startTime: '2030-01-08T14:00:00.000Z', endTime: '2030-01-08T15:00:00.000Z' });
    a.upsert('tasks', ids.task, { title: 'Plan the trip', priority: 2 });
    a.upsert('tasks', ids.sub, { title: 'Buy tickets', parentTaskUid: ids.task });
    a.upsert('reminders', ids.rem, { taskUid: ids.task, minutesBefore: 30 });
    const pushed = await a.push();
    expect(pushed.conflicts).toEqual([]);
    const results = RECORD_TYPES.flatMap((t) => [...pushed[t]]);
    expect(results.map((r) => [r.uid, r.status])).toEqual([
      [ids.work, 'created'], [ids.e1, 'created'], [ids.e2, 'created'], [ids.task, 'created'], [ids.sub, 'created'], [ids.rem, 'created'],
    ]);
    for (const r of results) expect(Number.isInteger(r.id)).toBe(true);
    note(...results.map((r) => r.version));
    expect(a.pending).toBe(0);

    await a.pull();
    const pages = await b.pull();
    expect(pages[0]?.cursorReset).toBe(false);
    expect(b.local.calendars.get(ids.work)).toMatchObject({ name: 'Work', isDefault: false, version: pushed.calendars[0]?.version });
    expect(b.local.events.get(ids.e1)).toMatchObject({ title: 'Standup', calendarUid: ids.work, rrule: 'FREQ=WEEKLY;COUNT=4;BYDAY=MO', version: pushed.events[0]?.version });
    expect(b.local.events.get(ids.e2)).toMatchObject({ title: 'Review', calendarUid: ids.work });
    expect(b.local.tasks.get(ids.sub)).toMatchObject({ title: 'Buy tickets', parentTaskUid: ids.task });
    expect(b.local.reminders.get(ids.rem)).toMatchObject({ taskUid: ids.task, minutesBefore: 30, version: pushed.reminders[0]?.version });
    expect(b.snapshot()).toEqual(a.snapshot());
  });

  it('3. offline edits of one event: A pushes first (updated), B second (conflict holding A\'s title; deleted)', async () => {
    a.upsert('events', ids.e1, { title: 'Standup (A)' });
    b.upsert('events', ids.e1, { title: 'Standup (B)' });
    b.remove('events', ids.e2);

    const fromA = await a.push();
    expect(fromA.events).toHaveLength(1);
    expect(fromA.events[0]).toMatchObject({ uid: ids.e1, status: 'updated' });
    expect(fromA.conflicts).toEqual([]);
    note(fromA.events[0]?.version);

    const fromB: PushData = await b.push();
    const [edit, del] = fromB.events;
    expect(edit).toMatchObject({ uid: ids.e1, status: 'conflict' });
    expect(Number.isInteger(edit?.conflictId)).toBe(true);
    expect(del).toMatchObject({ uid: ids.e2, status: 'deleted' });
    note(edit?.version, del?.version);
    expect(fromB.conflicts).toHaveLength(1);
    conflict = fromB.conflicts[0] as WireConflict;
    expect(conflict).toMatchObject({ conflictId: edit?.conflictId, entityType: 'EVENT', entityUid: ids.e1, winnerVersion: edit?.version, resolvedAt: null });
    expect(conflict.loserSnapshot).toMatchObject({ uid: ids.e1, title: 'Standup (A)', version: fromA.events[0]?.version });
    expect(b.pending).toBe(0);
  });

  it('4. A lists and restores the conflict; a second resolve is 409; both pull A\'s title at the restore version', async () => {
    const listed = await http.ok<{ conflicts: WireConflict[]; hasMore: boolean; nextAfterId: number | null }>('GET', '/api/sync/conflicts', { token: a.accessToken });
    expect(listed.conflicts.map((c) => c.conflictId)).toEqual([conflict.conflictId]);
    expect(listed).toMatchObject({ hasMore: false, nextAfterId: null });

    const path = `/api/sync/conflicts/${conflict.conflictId}/resolve`;
    const restored = await http.ok<{ conflict: WireConflict; record: { entityType: string; uid: string; version: string } }>('POST', path, { token: a.accessToken, body: { action: 'restore' } });
    expect(restored.conflict.conflictId).toBe(conflict.conflictId);
    expect(typeof restored.conflict.resolvedAt).toBe('string');
    expect(restored.record).toMatchObject({ entityType: 'EVENT', uid: ids.e1 });
    restoreVersion = restored.record.version;
    note(restoreVersion);

    const again = await http.request('POST', path, { token: b.accessToken, body: { action: 'dismiss' } });
    expect(again.status).toBe(409);
    expect((again.body as ErrorEnvelope).success).toBe(false);
    expect(codeOf(again.body)).toBe('CONFLICT_RESOLVED');
    const after = await http.ok<{ conflicts: WireConflict[] }>('GET', '/api/sync/conflicts', { token: b.accessToken });
    expect(after.conflicts).toEqual([]);

    for (const device of [a, b]) {
      const pages = await device.pull();
      expect(allRecords(pages).find((r) => r.uid === ids.e1)).toMatchObject({ title: 'Standup (A)', version: restoreVersion, deleted: null });
      expect(device.local.events.get(ids.e1)).toMatchObject({ title: 'Standup (A)', version: restoreVersion });
    }
  });

  it('5. both converge on exactly the live records of a fresh cursorless pull; versions only grew', async () => {
    expect(a.pending + b.pending).toBe(0);
    for (const device of [a, b]) {
      const pages = await device.pull();
      expect(pages).toHaveLength(1);
      for (const t of RECORD_TYPES) expect(pages[0]?.[t]).toEqual([]);
      expect(device.local.events.has(ids.e2)).toBe(false);
    }
    const fresh = new E2eDevice(http, phone, 'fresh-view');
    fresh.accessToken = a.accessToken;
    const pages: PullData[] = await fresh.pull(1);
    expect(pages[0]?.cursorReset).toBe(true);
    expect(pages.length).toBeGreaterThan(1);
    const tombstone = allRecords(pages).find((r) => r.uid === ids.e2);
    expect(tombstone?.deleted).toEqual(expect.any(String));
    for (const t of RECORD_TYPES) {
      const seen = pages.flatMap((p) => p[t].map((r) => BigInt(r.version)));
      expect(seen).toEqual([...seen].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
    }
    const server = liveSnapshot(stateFromPages(pages));
    expect(server.calendars.map((c) => c.name).sort()).toEqual(['Personal', 'Work']);
    expect([server.events.length, server.tasks.length, server.reminders.length]).toEqual([1, 2, 1]);
    expect(a.snapshot()).toEqual(server);
    expect(b.snapshot()).toEqual(server);
    for (let i = 1; i < writeVersions.length; i++) expect(writeVersions[i]! > writeVersions[i - 1]!).toBe(true);
    expect(writeVersions).toHaveLength(10);
  });

  it('6. refresh rotation and replay, logout, stats, metrics, OpenAPI, request ids, SIGTERM', async () => {
    const oldRefresh = a.refreshToken;
    const rotated = await http.ok<{ accessToken: string; refreshToken: string }>('POST', '/api/auth/refresh', { body: { refreshToken: oldRefresh, deviceUid: a.uid } });
    expect(rotated.refreshToken).not.toBe(oldRefresh);
    const me = await http.ok<{ user: { id: number } }>('GET', '/api/auth/me', { token: rotated.accessToken });
    expect(me.user.id).toBe(signInA.user.id);
    const claims = JSON.parse(Buffer.from(rotated.accessToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(claims).toMatchObject({ typ: 'access', did: a.uid, sub: expect.anything() });

    const replay = await http.request('POST', '/api/auth/refresh', { body: { refreshToken: oldRefresh, deviceUid: a.uid } });
    expect(replay.status).toBe(401);
    expect(codeOf(replay.body)).toBe('REFRESH_INVALID');
    const refused = await http.request('GET', '/api/sync/changes', { token: rotated.accessToken });
    expect(refused.status).toBe(401);
    const newRefresh = await http.request('POST', '/api/auth/refresh', { body: { refreshToken: rotated.refreshToken, deviceUid: a.uid } });
    expect(newRefresh.status).toBe(401);
    expect(codeOf(newRefresh.body)).toBe('REFRESH_INVALID');
    await b.pull();

    const stats = await http.ok<Record<string, unknown>>('GET', '/api/users/stats', { token: b.accessToken });
    expect(stats).toMatchObject({ calendars: 2, events: 1, tasks: 2, reminders: 1, unresolvedConflicts: 0 });
    expect(await http.ok('POST', '/api/auth/logout', { token: b.accessToken })).toEqual({ loggedOut: true });
    expect((await http.request('GET', '/api/sync/changes', { token: b.accessToken })).status).toBe(401);
    const afterLogout = await http.request('POST', '/api/auth/refresh', { body: { refreshToken: b.refreshToken, deviceUid: b.uid } });
    expect(codeOf(afterLogout.body)).toBe('REFRESH_INVALID');

    const metrics = await http.request<string>('GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    expect(metrics.text).toContain('# TYPE calsync_sync_push_items_total counter');
    expect(sampleValue(metrics.text, 'calsync_sync_conflicts_created_total{entity_type="EVENT"}')).toBe(1);
    expect(sampleValue(metrics.text, 'calsync_sync_push_items_total{type="events",status="conflict"}')).toBe(1);

    const docs = await http.request<{ openapi: string; paths: Record<string, unknown> }>('GET', '/api-docs-json');
    expect(docs.status).toBe(200);
    expect(docs.body.openapi).toMatch(/^3\./);
    expect(Object.keys(docs.body.paths)).toEqual(expect.arrayContaining(['/api/sync/push', '/api/sync/changes', '/api/auth/verify-otp']));

    const echoed = await http.request('GET', '/health', { headers: { 'x-request-id': 'e2e-trace-42' } });
    expect(echoed.headers.get('x-request-id')).toBe('e2e-trace-42');
    expect(echoed.body).toMatchObject({ success: true, data: { status: 'healthy' } });
    expect((await http.request('GET', '/health/live')).headers.get('x-request-id')).toBeTruthy();
    const unknown = await http.request('GET', '/api/no-such-route');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('x-request-id')).toBeTruthy();

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
