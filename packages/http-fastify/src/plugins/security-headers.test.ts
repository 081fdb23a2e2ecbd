import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import helmet from 'helmet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { asUser, build } from '../../test-support/index.js';
import { helmetDefaults } from './security-headers.js';

/** The headers of an answer that helmet's default middleware itself wrote on a real Node response. */
async function headersOfHelmet(): Promise<IncomingHttpHeaders> {
  const apply = helmet();
  const server = createServer((req, res) => apply(req, res, () => res.end('ok')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port, path: '/' }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.headers));
      })
        .on('error', reject)
        .end();
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

let app: FastifyInstance;
beforeAll(async () => {
  ({ app } = await build({ standIns: ['engine', 'sign-in'] }));
});
afterAll(async () => {
  await app.close();
});

describe('security headers worked out once from helmet', () => {
  it('are the headers helmet writes on a real response, name for name and value for value', async () => {
    const fromHelmet = await headersOfHelmet();
    const { set } = helmetDefaults();
    expect(set.length).toBeGreaterThan(5);
    for (const [name, value] of set) expect(fromHelmet[name.toLowerCase()], name).toBe(value);
    // Nothing helmet writes is missing from the precomputed list.
    const ours = new Set(set.map(([name]) => name.toLowerCase()));
    const standard = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
    expect(Object.keys(fromHelmet).filter((name) => !standard.has(name) && !ours.has(name))).toEqual([]);
  });

  it('go out on a push answer, an error and a 404 alike', async () => {
    const { set } = helmetDefaults();
    const answers = [
      await app.inject({ method: 'POST', url: '/api/sync/push', headers: asUser(7), payload: { events: [{ uid: 'e1', op: 'delete', baseVersion: '1' }] } }),
      await app.inject({ method: 'POST', url: '/api/sync/push', headers: asUser(7), payload: {} }),
      await app.inject({ method: 'GET', url: '/nowhere' }),
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([200, 400, 404]);
    for (const answer of answers) for (const [name, value] of set) expect(answer.headers[name.toLowerCase()], name).toBe(value);
  });
});
