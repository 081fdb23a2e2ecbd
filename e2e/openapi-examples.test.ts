import type { StandInSmsGateway } from '@calsync/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from './lib/http.js';
import { AnswerRecorder, OpenApiChecker, type OpenApiDocument } from './lib/openapi-contract.js';
import { startTestServer, type TestServer } from './lib/test-server.js';

// The contract test of the published document (our stand-in for dredd, which cannot read
// OpenAPI 3.1): it reads /api-docs-json from the real server process, sends every operation's
// documented request example in the order a client would, and checks each answer against the
// document. The only changes to an example are what no document can know in advance (the SMS
// code, tokens, the id of a conflict made on the way), each named below, as dredd hooks would.

interface Operation {
  readonly operationId: string;
  readonly requestBody?: { readonly content: Record<string, { readonly example?: unknown }> };
  readonly responses: Record<string, { readonly content?: Record<string, { readonly example?: unknown }> }>;
}
type Doc = OpenApiDocument & { readonly paths: Record<string, Record<string, Operation>> };

/** One step of the run: an operation, its path parameters and how its example is adapted. */
interface Step {
  readonly id: string;
  readonly params?: () => Record<string, string>;
  /** A query string for an operation whose query has required parameters. */
  readonly query?: string;
  readonly adapt?: (example: Record<string, unknown>) => Record<string, unknown>;
  readonly token?: () => string;
  readonly after?: (data: Record<string, unknown>) => void;
}

describe('the documented examples against the real server (contract test, OpenAPI 3.1)', () => {
  let running: TestServer | undefined;
  let gateway: StandInSmsGateway;
  let http: HttpClient;
  let doc: Doc;
  const recorder = new AnswerRecorder();
  const tokens = { access: '', refresh: '', second: '' };
  let conflictId = 0;

  beforeAll(async () => {
    running = await startTestServer('contract');
    gateway = running.gateway;
    http = new HttpClient(running.server.baseUrl, recorder);
    doc = (await http.request<Doc>('GET', '/api-docs-json')).body;
  }, 120_000);

  afterAll(async () => {
    await running?.stop();
  }, 60_000);

  /** Every operation of the document by operationId, with its method and path. */
  const operations = (): Map<string, { method: string; path: string; op: Operation }> => {
    const out = new Map<string, { method: string; path: string; op: Operation }>();
    for (const [path, item] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(item)) out.set(op.operationId, { method: method.toUpperCase(), path, op });
    return out;
  };
  const keepTokens = (data: Record<string, unknown>): void => {
    tokens.access = String(data.accessToken);
    tokens.refresh = String(data.refreshToken);
  };
  const access = (): string => tokens.access;

  /** The feed createFeed made: its id and its file (token.ics). */
  let feed = { id: '', file: '' };
  const steps: Step[] = [
    { id: 'getHealth' },
    { id: 'getLiveness' },
    { id: 'getReadiness' },
    { id: 'getMetrics' },
    { id: 'sendOtp' },
    // The code is whatever the stand-in gateway received for the example's phone.
    { id: 'verifyOtp', adapt: (e) => ({ ...e, otp: gateway.lastCode(String(e.phone)) }), after: keepTokens },
    { id: 'getMe', token: access },
    { id: 'updateMe', token: access },
    // The example's e-mail and password are the ones updateMe just set.
    { id: 'login', after: keepTokens },
    { id: 'refreshTokens', adapt: (e) => ({ ...e, refreshToken: tokens.refresh }), after: keepTokens },
    { id: 'pushChanges', token: access },
    { id: 'pullChanges', token: access },
    { id: 'createAppPassword', token: access },
    { id: 'createFeed', token: access, after: (d) => (feed = { id: String(d.id), file: String(d.url).split('/').pop() ?? '' }) },
    { id: 'listFeeds', token: access },
    { id: 'getFeed', params: () => ({ file: feed.file }) },
    { id: 'deleteFeed', token: access, params: () => ({ id: feed.id }) },
    { id: 'listOccurrences', token: access, query: '?from=2026-03-01T00:00:00Z&to=2026-04-01T00:00:00Z&tz=Europe/Berlin' },
    { id: 'listConflicts', token: access, after: (d) => (conflictId = Number((d.conflicts as { conflictId: number }[])[0]?.conflictId ?? 0)) },
    { id: 'resolveConflict', token: access, params: () => ({ id: String(conflictId) }) },
    { id: 'getStats', token: access },
    { id: 'resetSync', token: access },
    { id: 'listDevices', token: access },
    { id: 'renameDevice', token: access, params: () => ({ uid: 'laptop-7f3a' }) },
    // A second device of the same user (signed in by login with another device uid) is revoked.
    { id: 'revokeDevice', token: access, params: () => ({ uid: 'phone-19c2' }) },
    { id: 'logout', token: access },
  ];

  /** Operations answering a stream (text/event-stream) never finish on their own: not sent here (e2e/notifications cover them). */
  const streaming = (op: Operation): boolean => op.responses['200']?.content?.['text/event-stream'] !== undefined;

  it('covers every operation the document lists (streams aside)', () => {
    const listed = [...operations().values()].filter((o) => !streaming(o.op)).map((o) => o.op.operationId);
    expect(listed.sort()).toEqual(steps.map((s) => s.id).sort());
  });

  it('every documented example is valid against its own schema', () => {
    const checker = new OpenApiChecker(doc);
    for (const { method, path, op } of operations().values()) {
      const example = op.responses['200']?.content?.['application/json']?.example;
      if (example === undefined) continue;
      expect(checker.problems({ method, path: path.replace(/\{[^}]+\}/g, '1'), status: 200, contentType: 'application/json', text: JSON.stringify(example) })).toEqual([]);
    }
  });

  it('sends each example in a client order: every answer is a documented 2xx that matches the document', async () => {
    const ops = operations();
    for (const step of steps) {
      const found = ops.get(step.id);
      if (!found) throw new Error(`${step.id} is not in the document`);
      if (step.id === 'pullChanges') {
        // Made on the way: the stand-up edited from a stale version, so the next two steps have a conflict to list and restore.
        const stale = await http.request('POST', '/api/sync/push', {
          token: tokens.access,
          body: { events: [{ uid: 'evt-standup', op: 'upsert', baseVersion: '1', title: 'Stand-up (moved)' }] },
        });
        expect((stale.body as { data: { events: { status: string }[] } }).data.events[0]?.status).toBe('conflict');
      }
      if (step.id === 'revokeDevice') {
        const loginOp = ops.get('login')?.op.requestBody?.content['application/json']?.example as Record<string, unknown>;
        const second = await http.request<{ data: { accessToken: string } }>('POST', '/api/auth/login', { body: { ...loginOp, device: { uid: 'phone-19c2' } } });
        expect(second.status).toBe(200);
      }
      const example = found.op.requestBody?.content['application/json']?.example as Record<string, unknown> | undefined;
      if (found.op.requestBody !== undefined) expect(example, `${step.id} has a request example`).toBeDefined();
      const params = step.params?.() ?? {};
      const path = found.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? '')) + (step.query ?? '');
      const body = example === undefined ? undefined : (step.adapt?.(example) ?? example);
      const answer = await http.request<{ success?: boolean; data?: Record<string, unknown> }>(found.method, path, {
        ...(body === undefined ? {} : { body }),
        ...(step.token ? { token: step.token() } : {}),
      });
      expect([step.id, answer.status], answer.text).toEqual([step.id, 200]);
      if (answer.body.data !== undefined) step.after?.(answer.body.data);
    }
    const { problems, seen } = new OpenApiChecker(doc).checkAll(recorder.answers);
    expect(problems).toEqual([]);
    expect(seen.size).toBe(steps.length);
  });

  it('the checker is not vacuous: a wrong body, a wrong code and an undocumented status are mismatches', () => {
    const checker = new OpenApiChecker(doc);
    const ok = (path: string, data: unknown) => ({ method: 'GET', path, status: 200, contentType: 'application/json', text: JSON.stringify({ success: true, data }) });
    const pull = { cursorReset: false, nextCursor: 'x', hasMore: false, newestConflictId: null, calendars: [], tasks: [], reminders: [] };
    const event = { id: 1, uid: 'e', version: '2', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', deleted: null, calendarUid: 'c', title: 't', description: null, location: null, startTime: '2026-01-01T00:00:00.000Z', endTime: '2026-01-01T00:00:00.000Z', allDay: false, timezone: null, rrule: null, exdate: null, recurringEventUid: null, originalStartTime: null, splitFromUid: null, splitFromStart: null, moves: null, icalExtras: null };
    expect(checker.problems(ok('/api/sync/changes', { ...pull, events: [event] }))).toEqual([]);
    expect(checker.problems(ok('/api/sync/changes', { ...pull, events: [{ ...event, startTime: 'yesterday' }] }))).not.toEqual([]);
    expect(checker.problems(ok('/api/sync/changes', { ...pull, events: [{ ...event, version: null }] }))).not.toEqual([]);
    expect(checker.problems(ok('/api/sync/changes', { ...pull, events: [{ ...event, title: undefined }] }))).not.toEqual([]);
    const failure = (status: number, code: string) => ({ method: 'POST', path: '/api/auth/send-otp', status, contentType: 'application/json', text: JSON.stringify({ success: false, error: { code, message: 'm' } }) });
    expect(checker.problems(failure(429, 'OTP_RESEND_TOO_SOON'))).toEqual([]);
    expect(checker.problems(failure(429, 'OTP_ATTEMPTS_EXCEEDED'))).not.toEqual([]);
    expect(checker.problems(failure(401, 'UNAUTHORIZED'))).not.toEqual([]);
  });
});
