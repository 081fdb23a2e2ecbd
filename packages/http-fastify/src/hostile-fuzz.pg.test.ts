import { propertyRuns } from '@calsync/testkit';
import { announceDatabaseKinds, openTestDatabase, type TestDatabase } from '@calsync/adapters-postgres/test-support';
import { FIELD_TABLES, RECORD_TYPES, type RecordType } from '@calsync/domain';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type TestApp } from '../test-support/index.js';

// Hostile values on every route of the app wired as main.ts wires it (real sign-in, batch push),
// on PGlite and PostgreSQL: NUL and control characters, lone surrogates, out-of-range instants,
// huge and negative numbers, unknown keys, deep nesting. The one assertion that matters: no 5xx,
// and every answer is the envelope. FC_RUNS multiplies the number of requests.

const RUNS = propertyRuns();

const hostileString = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udfff', '\u0001\u001f\u007f', '\u202e', '\ufeff', '%00', "'; drop table users; --", '\\', '"', 'x'.repeat(5000)),
  fc.string({ maxLength: 6 }).map((s) => `${s}\u0000${s}`),
);
const hostileInstant = fc.constantFrom(
  '0000-01-01T00:00:00Z', '0001-01-01T00:00:00Z', '0001-01-01T00:30:00+01:00', '9999-12-31T23:59:59.999Z', '9999-12-31T23:30:00-01:00',
  '-000001-01-01T00:00:00Z', '+275760-09-13T00:00:00Z', '2026-02-30T00:00:00Z', '2026-03-01T10:00:00Z', '2026-03-01T11:00:00.000Z',
  '2026-03-01T10:00:00\u0000Z', '20260301T100000Z', '2026-03-01T24:00:00Z', '1e309',
);
const hostileNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(-1, 0, 1, 9, 10, 40320, 40321, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, -(2 ** 53), Number.MAX_VALUE, 1e308, -1e308, 1.5),
);
const deep = fc.integer({ min: 10, max: 3000 }).map((n) => JSON.parse(`${'['.repeat(n)}1${']'.repeat(n)}`) as unknown);
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 2, arbitrary: hostileInstant },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}) },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: fc.dictionary(hostileString, fc.string(), { maxKeys: 3 }) },
);
const uid = fc.oneof(fc.constantFrom('a', 'cal-1', 'ev-1', 't-1', 'r-1'), hostileString);

function hostileItem(type: RecordType): fc.Arbitrary<Record<string, unknown>> {
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of FIELD_TABLES[type]) {
    fields[f.name] = f.kind === 'datetime' ? fc.oneof(hostileInstant, hostileValue) : f.kind === 'integer' ? fc.oneof(hostileNumber, hostileValue) : fc.oneof(fc.constantFrom('cal-1', 'ev-1', 't-1', 'Work', 'FREQ=DAILY', 'UTC', '#ff00aa'), hostileValue);
  }
  return fc
    .record({
      uid,
      op: fc.constantFrom('upsert', 'upsert', 'delete', 'merge'),
      baseVersion: fc.oneof(fc.constant(null), fc.constantFrom('0', '1', '9223372036854775807', '9223372036854775808', '-1', '01'), hostileValue),
      fields: fc.record(fields, { requiredKeys: [] }),
      unknown: fc.dictionary(fc.constantFrom('bogus', '__proto__', 'constructor', 'x\u0000'), hostileValue, { maxKeys: 2 }),
    }, { requiredKeys: ['uid', 'op'] })
    .map(({ fields: f, unknown, ...rest }) => ({ ...f, ...unknown, ...rest }));
}
const pushBody = fc.record(
  Object.fromEntries(RECORD_TYPES.map((t) => [t, fc.array(hostileItem(t), { maxLength: 4 })])) as Record<RecordType, fc.Arbitrary<Record<string, unknown>[]>>,
  { requiredKeys: [] },
);
/** Percent-encodes a path segment; a lone surrogate (no UTF-8 form) becomes the bytes of an invalid UTF-8 sequence. */
const enc = (s: string): string => {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80';
  }
};
const objectOf = (keys: string[]) => fc.dictionary(fc.oneof(fc.constantFrom(...keys), hostileString), hostileValue, { maxKeys: 4 });

/** One request: [method, url, body] for every route (the notification stream excepted: it never ends). */
const request: fc.Arbitrary<[string, string, unknown]> = fc.oneof(
  pushBody.map((b) => ['POST', '/api/sync/push', b] as [string, string, unknown]),
  fc.tuple(fc.option(hostileString), fc.option(hostileString)).map(([c, l]) => ['GET', `/api/sync/changes?${new URLSearchParams({ ...(c === null ? {} : { cursor: c }), ...(l === null ? {} : { limit: l }) })}`, undefined] as [string, string, unknown]),
  fc.tuple(hostileString, hostileString).map(([a, l]) => ['GET', `/api/sync/conflicts?${new URLSearchParams({ afterId: a, limit: l })}`, undefined] as [string, string, unknown]),
  fc.tuple(fc.oneof(hostileString, hostileNumber.map(String)), objectOf(['action'])).map(([id, b]) => ['POST', `/api/sync/conflicts/${enc(id)}/resolve`, b] as [string, string, unknown]),
  objectOf(['phone', 'name']).map((b) => ['POST', '/api/auth/send-otp', b] as [string, string, unknown]),
  objectOf(['phone', 'otp', 'device']).map((b) => ['POST', '/api/auth/verify-otp', b] as [string, string, unknown]),
  objectOf(['email', 'password', 'device']).map((b) => ['POST', '/api/auth/login', b] as [string, string, unknown]),
  objectOf(['refreshToken', 'deviceUid']).map((b) => ['POST', '/api/auth/refresh', b] as [string, string, unknown]),
  objectOf(['name', 'email', 'password', 'notificationSettings']).map((b) => ['PATCH', '/api/users/me', b] as [string, string, unknown]),
  hostileString.map((u) => ['DELETE', `/api/auth/devices/${enc(u)}`, undefined] as [string, string, unknown]),
  fc.constantFrom<[string, string, unknown]>(['GET', '/api/auth/me', undefined], ['GET', '/api/auth/devices', undefined], ['GET', '/api/users/stats', undefined], ['POST', '/api/users/reset-sync', undefined], ['GET', '/health/ready', undefined]),
);

for (const kind of announceDatabaseKinds('hostile fuzz')) {
  describe(`fuzz with hostile values on every route (${kind})`, () => {
    let database: TestDatabase;
    let wired: TestApp;
    let headers: { authorization: string };

    beforeAll(async () => {
      database = await openTestDatabase(kind);
      wired = await build({ database, env: { RATE_LIMIT_MAX_REQUESTS: '10000000', AUTH_RATE_LIMIT_MAX_REQUESTS: '10000000' } });
      headers = await wired.signIn('+15550006001');
    });
    afterAll(async () => {
      await wired?.app.close();
      await database?.close();
    });

    it('answers every request with a non-5xx status in the envelope', async () => {
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(request, async ([method, url, body]) => {
          const res = await wired.app.inject({
            method: method as 'GET',
            url,
            headers,
            ...(body === undefined ? {} : { payload: JSON.stringify(body), headers: { ...headers, 'content-type': 'application/json' } }),
          });
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          expect(res.statusCode, `${method} ${url} ${JSON.stringify(body)?.slice(0, 300)} -> ${res.body.slice(0, 300)}`).toBeLessThan(500);
          const parsed = JSON.parse(res.body) as { success: boolean; error?: { code: string } };
          expect(typeof parsed.success).toBe('boolean');
          if (!parsed.success) expect(typeof parsed.error?.code).toBe('string');
        }),
        { numRuns: 700 * RUNS },
      );
      const fivexx = [...statuses].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
      console.info(`[hostile fuzz] ${kind}: ${[...statuses.values()].reduce((a, b) => a + b, 0)} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}, 5xx: ${fivexx}`);
      expect(fivexx).toBe(0);
      // The generators reach the handlers, not only the validators.
      expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
      // The token still works: nothing in the storm broke the session or the process.
      expect((await wired.app.inject({ method: 'GET', url: '/api/auth/me', headers })).statusCode).toBe(200);
      expect(wired.itemFailures).toEqual([]);
    });
  });
}
