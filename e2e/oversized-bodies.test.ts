import { request as undiciRequest } from 'undici';
import { writeAllThenRead } from '@calsync/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from './lib/http.js';
import { startTestServer, type TestServer } from './lib/test-server.js';

// A push body over BODY_LIMIT_BYTES (1 MiB), sent to the real server process on embedded PGlite by
// clients that write their whole body before they read the answer (node:http with Content-Length
// and chunked, undici), 50 times each, while other requests keep the server busy: every one of
// them reads the 413 in the envelope, none a broken pipe or a reset.

const ROUNDS = 50;
const SIZES = [1.2e6, 2e6, 10e6];

let test: TestServer;
let port: number;
let authorization: string;

beforeAll(async () => {
  test = await startTestServer('oversized', { RATE_LIMIT_MAX_REQUESTS: '1000000' });
  port = Number(new URL(test.server.baseUrl).port);
  const http = new HttpClient(test.server.baseUrl);
  const phone = '+15550008001';
  await http.ok('POST', '/api/auth/send-otp', { body: { phone } });
  const signedIn = await http.ok<{ accessToken: string }>('POST', '/api/auth/verify-otp', { body: { phone, otp: test.gateway.lastCode(phone) } });
  authorization = `Bearer ${signedIn.accessToken}`;
});
afterAll(async () => {
  await test?.stop();
});

/** Small pushes in a loop until `stop` is set: the load the oversized bodies meet. */
async function load(stop: { done: boolean }, worker: number): Promise<number> {
  let n = 0;
  while (!stop.done) {
    const res = await fetch(`${test.server.baseUrl}/api/sync/push`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ tasks: [{ uid: `load-${worker}-${n}`, op: 'upsert', baseVersion: null, title: 'load' }] }),
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    n++;
  }
  return n;
}

describe('413 that a client can read, under load', () => {
  it(`node:http and undici writing 1.2, 2 and 10 MB before reading, ${ROUNDS} times each: every one reads 413 PAYLOAD_TOO_LARGE`, async () => {
    const stop = { done: false };
    const workers = [0, 1, 2].map((w) => load(stop, w));
    const failures: string[] = [];
    let answered = 0;
    try {
      for (const size of SIZES) {
        const body = Buffer.alloc(size, 0x20);
        body.write('{"tasks":[');
        for (let round = 0; round < ROUNDS; round++) {
          const results = await Promise.all([
            writeAllThenRead(port, body, false, { authorization }),
            writeAllThenRead(port, body, true, { authorization }),
            undiciRequest(`${test.server.baseUrl}/api/sync/push`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body }).then(
              async (res) => ({ status: res.statusCode, text: await res.body.text(), error: null as string | null }),
              (e: Error & { code?: string }) => ({ status: 0, text: '', error: e.code ?? e.message }),
            ),
          ]);
          results.forEach((r, i) => {
            const client = ['node:http', 'node:http chunked', 'undici'][i];
            if (r.error !== null || r.status !== 413 || !r.text.includes('PAYLOAD_TOO_LARGE')) failures.push(`${client} ${size / 1e6} MB round ${round}: ${r.error ?? `${r.status} ${r.text.slice(0, 100)}`}`);
            else answered++;
          });
        }
      }
    } finally {
      stop.done = true;
    }
    const pushes = (await Promise.all(workers)).reduce((a, b) => a + b, 0);
    console.info(`[oversized bodies] ${answered} answered 413 of ${SIZES.length * ROUNDS * 3}, while ${pushes} small pushes ran`);
    expect(failures).toEqual([]);
    expect(pushes).toBeGreaterThan(0);
  });
});
