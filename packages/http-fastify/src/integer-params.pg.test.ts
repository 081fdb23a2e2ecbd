import { announceDatabaseKinds, openTestDatabase, type TestDatabase } from '@calsync/adapters-postgres/test-support';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIntegerParam } from './plugins/integer-params.js';
import { build, type TestApp } from '../test-support/index.js';

// Every integer path parameter and query value of the published document, found in it (so a new
// one is covered without touching this file), gets the texts that are not integers by our rule, on
// PGlite and PostgreSQL with the real engine: each is 400 VALIDATION_ERROR, never a 5xx.

const HOSTILE = ['Infinity', '-Infinity', 'NaN', '1e309', '1e3', '-0', '0x10', '0b1', '007', ' 12', '12 ', '+5', '1.5', '9007199254740992', '9007199254740993', '-9007199254740993', '9'.repeat(400), ''];

interface IntegerParam {
  readonly method: string;
  readonly path: string;
  readonly in: 'path' | 'query';
  readonly name: string;
  readonly body?: unknown;
}

/** The integer parameters of every operation in the document. */
function integerParams(document: { paths: Record<string, Record<string, { parameters?: { in: string; name: string; schema?: { type?: string } }[]; requestBody?: unknown }>> }): IntegerParam[] {
  const out: IntegerParam[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      for (const p of op.parameters ?? []) {
        if (p.schema?.type !== 'integer' || (p.in !== 'path' && p.in !== 'query')) continue;
        out.push({ method: method.toUpperCase(), path, in: p.in, name: p.name, ...(op.requestBody ? { body: { action: 'dismiss' } } : {}) });
      }
    }
  }
  return out;
}

/** The URL of `param` set to `text` (other path parameters 1). */
function urlOf(param: IntegerParam, text: string): string {
  const value = encodeURIComponent(text);
  const path = param.path.replace(/\{([^}]+)\}/g, (_m, name: string) => (param.in === 'path' && name === param.name ? value : '1'));
  return param.in === 'query' ? `${path}?${param.name}=${value}` : path;
}

describe('parseIntegerParam: the one rule', () => {
  it('reads canonical decimal integers within ±(2^53 − 1) and nothing else', () => {
    expect(['0', '1', '-1', '42', '9007199254740991', '-9007199254740991'].map(parseIntegerParam)).toEqual([0, 1, -1, 42, 9007199254740991, -9007199254740991]);
    for (const text of HOSTILE) expect(parseIntegerParam(text), text).toBeNull();
  });

  it('agrees with a round trip through Number for every safe integer', () => {
    fc.assert(fc.property(fc.maxSafeInteger(), (n) => parseIntegerParam(String(n)) === n));
    fc.assert(fc.property(fc.string(), (s) => {
      const n = parseIntegerParam(s);
      return n === null || String(n) === s;
    }));
  });
});

for (const kind of announceDatabaseKinds('integer parameters')) {
  describe(`every integer path and query parameter, hostile texts (${kind})`, () => {
    let database: TestDatabase;
    let wired: TestApp;
    let headers: { authorization: string };
    let params: IntegerParam[];

    beforeAll(async () => {
      database = await openTestDatabase(kind);
      wired = await build({ database, env: { RATE_LIMIT_MAX_REQUESTS: '10000000' } });
      headers = await wired.signIn('+15550007001');
      params = integerParams((await wired.app.inject({ method: 'GET', url: '/api-docs-json' })).json());
    });
    afterAll(async () => {
      await wired?.app.close();
      await database?.close();
    });

    it('finds the integer parameters in the document (limit, afterId, the conflict id)', () => {
      expect(params.map((p) => `${p.method} ${p.path} ${p.in}:${p.name}`).sort()).toEqual([
        'GET /api/sync/changes query:limit',
        'GET /api/sync/conflicts query:afterId',
        'GET /api/sync/conflicts query:limit',
        'POST /api/sync/conflicts/{id}/resolve path:id',
      ]);
    });

    it('answers each hostile text 400 VALIDATION_ERROR, and a plain integer 2xx or 404', async () => {
      let requests = 0;
      for (const param of params) {
        for (const action of param.body === undefined ? [undefined] : ['restore', 'dismiss']) {
          const send = (text: string) =>
            wired.app.inject({ method: param.method as 'GET', url: urlOf(param, text), headers, ...(action === undefined ? {} : { payload: { action } }) });
          for (const text of HOSTILE) {
            // An empty path segment is another route (404); an empty query value is absent.
            if (text === '') continue;
            const res = await send(text);
            requests++;
            expect(res.statusCode, `${param.method} ${urlOf(param, text)} -> ${res.body.slice(0, 200)}`).toBe(400);
            expect(res.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
            // The schema names the parameter; a path parameter over the router's length limit is refused before routing.
            if (res.json().error.details !== undefined) expect(JSON.stringify(res.json().error.details)).toContain(param.name);
          }
          const plain = await send('1');
          requests++;
          expect([200, 404]).toContain(plain.statusCode);
        }
      }
      console.info(`[integer parameters] ${kind}: ${params.length} parameters, ${requests} requests, no 5xx`);
    });

    it('random texts over digits, signs, dots, letters and spaces never reach a 5xx', async () => {
      const text = fc.stringMatching(/^[-+0-9.eExXabInfityNa ]{1,24}$/);
      let requests = 0;
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...params), text, async (param, t) => {
          const res = await wired.app.inject({ method: param.method as 'GET', url: urlOf(param, t), headers, ...(param.body === undefined ? {} : { payload: param.body as object }) });
          requests++;
          expect(res.statusCode, `${urlOf(param, t)} -> ${res.body.slice(0, 200)}`).toBeLessThan(500);
          // A path segment such as `.` or `..` is resolved away by the router (404), before any parameter is read.
          if (parseIntegerParam(t) === null && res.statusCode !== 404) expect(res.statusCode).toBe(400);
        }),
        { numRuns: 300 },
      );
      console.info(`[integer parameters] ${kind}: ${requests} random texts, no 5xx`);
    });
  });
}
