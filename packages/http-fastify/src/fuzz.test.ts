import { FIELD_TABLES, RECORD_TYPES, type FieldSpec, type RecordType } from '@calsync/domain';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, build } from '../test-support/index.js';

// Malformed and hostile requests against every route, on the real sync engine (in memory):
// whatever arrives, the answer is never a 5xx and always the envelope (or 304 / metrics text).

let app: FastifyInstance;
beforeAll(async () => {
  ({ app } = await build({ env: { RATE_LIMIT_MAX_REQUESTS: '1000000', BODY_LIMIT_BYTES: '65536' }, standIns: ['sign-in'] }));
});
afterAll(async () => {
  await app.close();
});

const uid = fc.oneof(fc.constantFrom('a', 'cal-1', 'ev_1', 't1', 'r1', 'x'.repeat(128)), fc.string({ maxLength: 12 }));
const version = fc.oneof(fc.constant(null), fc.constantFrom('0', '1', '2', '7', '9223372036854775807'), fc.bigInt({ min: 0n, max: 1000n }).map(String), fc.integer(), fc.string({ maxLength: 4 }));
const value = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -100, max: 50000 }),
  fc.string({ maxLength: 30 }),
  fc.constantFrom('2026-03-01T10:00:00Z', '2026-03-01T09:00:00.000Z', 'FREQ=DAILY;COUNT=3', 'RRULE:FREQ=WEEKLY', 'FREQ=FOO', '#ff00aa', 'Europe/Paris', 'Mars/Base', 'cal-1', 'ev_1', 't1', ''),
);
const fieldNames = ['name', 'color', 'timezone', 'isDefault', 'calendarUid', 'title', 'description', 'location', 'startTime', 'endTime', 'allDay', 'rrule', 'exdate', 'notes', 'dueAt', 'completed', 'completedAt', 'priority', 'parentTaskUid', 'eventUid', 'taskUid', 'minutesBefore', 'remindAt', 'id', 'version', 'deleted', 'syncStatus', 'bogus'];
const item = fc.record(
  { uid, op: fc.constantFrom('upsert', 'delete', 'merge'), baseVersion: version, extra: fc.dictionary(fc.constantFrom(...fieldNames), value, { maxKeys: 6 }) },
  { requiredKeys: ['uid', 'op'] },
).map(({ extra, ...rest }) => ({ ...extra, ...rest }));
// Items that pass the schema (types right) but carry hostile values for the engine's own checks.
const stringValue = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('2026-03-01T10:00:00Z', '2026-03-01T11:00:00.000Z', 'not-a-date', 'FREQ=DAILY;COUNT=3', 'RRULE:FREQ=WEEKLY', 'FREQ=FOO;BYHOUR=25', '#ff00aa', 'Europe/Paris', 'Mars/Base', 'cal-1', 'ev_1', 't1', ''));
function typedValue(f: FieldSpec): fc.Arbitrary<unknown> {
  const base = f.kind === 'boolean' ? fc.boolean() : f.kind === 'integer' ? fc.integer({ min: -10, max: 50000 }) : stringValue;
  return f.nullable ? fc.oneof(base, fc.constant(null)) : base;
}
function validItem(type: RecordType): fc.Arbitrary<Record<string, unknown>> {
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of FIELD_TABLES[type]) fields[f.name] = typedValue(f);
  return fc
    .record({
      uid: fc.constantFrom('a', 'b', 'cal-1', 'ev_1', 't1', 'r1'),
      op: fc.constantFrom('upsert', 'upsert', 'delete'),
      baseVersion: fc.oneof(fc.constant(null), fc.bigInt({ min: 0n, max: 60n }).map(String)),
      fields: fc.record(fields, { requiredKeys: [] }),
    })
    .map(({ fields: f, ...rest }) => ({ ...f, ...rest }));
}
const validPushBody = fc.record(
  Object.fromEntries(RECORD_TYPES.map((t) => [t, fc.array(validItem(t), { minLength: 1, maxLength: 4 })])) as Record<RecordType, fc.Arbitrary<Record<string, unknown>[]>>,
  { requiredKeys: [] },
);
const pushBody = fc.record(
  { calendars: fc.array(item, { maxLength: 4 }), events: fc.array(item, { maxLength: 4 }), tasks: fc.array(item, { maxLength: 4 }), reminders: fc.array(item, { maxLength: 4 }) },
  { requiredKeys: [] },
);
const body = fc.oneof(
  pushBody.map((b) => JSON.stringify(b)),
  fc.json(),
  fc.string({ maxLength: 50 }),
  fc.constantFrom('', '{', 'null', '[]', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}', '{"action":"restore"}', '{"action":"dismiss"}', '{"events":[{"uid":"e","op":"upsert","baseVersion":null,"title":"t","startTime":"2026-01-01T00:00:00Z","endTime":"2026-01-01T01:00:00Z","calendarUid":"missing"}]}'),
);
const contentType = fc.option(fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', 'application/json;;', 'weird'), { nil: undefined });
const query = fc.dictionary(fc.constantFrom('cursor', 'limit', 'afterId', 'x', '__proto__'), fc.oneof(fc.string({ maxLength: 20 }), fc.integer().map(String)), { maxKeys: 3 });
const route = fc.oneof(
  fc.constantFrom(
    ['POST', '/api/sync/push'],
    ['GET', '/api/sync/changes'],
    ['GET', '/api/sync/conflicts'],
    ['POST', '/api/users/reset-sync'],
    ['GET', '/api/users/stats'],
    ['GET', '/health'],
    ['GET', '/health/live'],
    ['GET', '/health/ready'],
    ['GET', '/api-docs-json'],
    ['DELETE', '/api/sync/push'],
  ),
  fc.oneof(fc.constantFrom('1', '0', '-1', 'abc', '99999999999999999999', '%00', '1.5'), fc.string({ maxLength: 8 })).map((id) => ['POST', `/api/sync/conflicts/${encodeURIComponent(id)}/resolve`]),
  fc.string({ maxLength: 20 }).map((p) => ['GET', `/api/${encodeURIComponent(p)}`]),
) as fc.Arbitrary<[string, string]>;
const headers = fc.record(
  {
    'x-request-id': fc.string({ maxLength: 200 }),
    'if-none-match': fc.oneof(fc.constant('*'), fc.string({ maxLength: 40 })),
    authorization: fc.constantFrom(asUser(1).authorization, asUser(2).authorization, 'Bearer user-abc', '', 'Bearer x', 'Basic y', 'Bearer '),
  },
  { requiredKeys: [] },
);

describe('fuzz: no 5xx on any route', () => {
  it('answers malformed bodies, queries and headers with 2xx/3xx/4xx in the envelope', async () => {
    const tally = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(route, body, contentType, query, headers, async ([method, url], payload, type, qs, hdrs) => {
        const sendBody = method !== 'GET';
        const res = await app.inject({
          method: method as 'GET' | 'POST' | 'DELETE',
          url,
          query: qs,
          headers: { ...hdrs, ...(type && sendBody ? { 'content-type': type } : {}) },
          ...(sendBody ? { payload } : {}),
        });
        expect(res.statusCode, `${method} ${url} -> ${res.body.slice(0, 300)}`).toBeLessThan(500);
        const key = `${method} ${url.startsWith('/api/sync/conflicts/') ? 'resolve' : url} ${res.statusCode}`;
        tally.set(key, (tally.get(key) ?? 0) + 1);
        expect(res.headers['x-request-id']).toBeTruthy();
        if (res.statusCode === 304 || url === '/api-docs-json') return;
        const parsed = JSON.parse(res.body) as { success: boolean; error?: { code: string; message: string } };
        expect(typeof parsed.success).toBe('boolean');
        if (!parsed.success) expect(typeof parsed.error?.code).toBe('string');
      }),
      { numRuns: 1500 },
    );
    // The generators must reach the routes' handlers, not only the validators.
    expect(tally.get('GET /api/sync/changes 200') ?? 0).toBeGreaterThan(0);
  });

  it('answers near-valid pushes from a signed-in user on the real engine without 5xx', async () => {
    let applied = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('1', '2'), validPushBody, fc.option(fc.integer({ min: -5, max: 2000 }), { nil: undefined }), async (userId, b, limit) => {
        const res = await app.inject({ method: 'POST', url: '/api/sync/push', headers: asUser(userId), payload: b });
        expect(res.statusCode, res.body.slice(0, 300)).toBeLessThan(500);
        if (res.statusCode === 200) applied++;
        const pull = await app.inject({ method: 'GET', url: '/api/sync/changes', headers: asUser(userId), query: limit === undefined ? {} : { limit: String(limit) } });
        expect(pull.statusCode, pull.body.slice(0, 300)).toBe(200);
      }),
      { numRuns: 400 },
    );
    expect(applied).toBeGreaterThan(0);
  });
});
