import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { asUser, build } from '../test-support/index.js';
import type { RecordingSyncApi } from '../test-support/index.js';

let app: FastifyInstance;
let sync: RecordingSyncApi;
beforeAll(async () => {
  ({ app, recording: sync } = await build({ standIns: ['engine', 'sign-in'], env: { BODY_LIMIT_BYTES: '2048' } }));
});
afterAll(async () => {
  await app.close();
});

const user = asUser(7);

describe('request id and headers', () => {
  it('echoes a sent x-request-id and generates one otherwise', async () => {
    const echoed = await app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers['x-request-id']).toBe('abc-123');
    const made = await app.inject({ method: 'GET', url: '/health' });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
  it('replaces an unsafe x-request-id instead of echoing it', async () => {
    const res = await app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'a b<script>' } });
    expect(res.headers['x-request-id']).not.toBe('a b<script>');
  });
  it('sends helmet headers, also on errors', async () => {
    const res = await app.inject({ method: 'GET', url: '/nowhere' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
    expect(res.headers['x-request-id']).toBeTruthy();
  });
});

describe('error envelope for framework failures', () => {
  it('404 NOT_FOUND for an unknown route, with or without a token', async () => {
    for (const headers of [{}, user]) {
      const res = await app.inject({ method: 'GET', url: '/api/nothing-here', headers });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    }
  });
  it('400 INVALID_JSON for a body that does not parse', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/sync/push', headers: { ...user, 'content-type': 'application/json' }, payload: '{"events": [' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, error: { code: 'INVALID_JSON', message: expect.any(String) } });
  });
  it('an empty JSON body is no body on a route without one, and still INVALID_JSON where a body is required', async () => {
    const json = { ...user, 'content-type': 'application/json' };
    const reset = await app.inject({ method: 'POST', url: '/api/users/reset-sync', headers: json, payload: '' });
    expect(reset.statusCode).toBe(200);
    const push = await app.inject({ method: 'POST', url: '/api/sync/push', headers: json, payload: '' });
    expect([push.statusCode, push.json().error.code]).toEqual([400, 'INVALID_JSON']);
  });
  it('rejects prototype poisoning in JSON bodies with 400, never a 500', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/sync/push', headers: { ...user, 'content-type': 'application/json' }, payload: '{"__proto__":{"x":1},"events":[]}' });
    expect(res.statusCode).toBe(400);
    expect(res.json().success).toBe(false);
  });
  it('CORS preflight allows the methods the API uses (PATCH, DELETE)', async () => {
    const res = await app.inject({ method: 'OPTIONS', url: '/api/users/me', headers: { origin: 'https://app.example', 'access-control-request-method': 'PATCH' } });
    expect(res.statusCode).toBe(204);
    expect(String(res.headers['access-control-allow-methods'])).toContain('PATCH');
    expect(String(res.headers['access-control-allow-methods'])).toContain('DELETE');
  });
  it('413 PAYLOAD_TOO_LARGE above BODY_LIMIT_BYTES', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/sync/push', headers: user, payload: { calendars: [{ uid: 'a', op: 'upsert', baseVersion: null, name: 'x'.repeat(4000) }] } });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(res.json().error.message).toContain('2048');
  });
  it('415 UNSUPPORTED_MEDIA_TYPE for a body that is not JSON', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await app.inject({ method: 'POST', url: '/api/sync/push', headers: { ...user, 'content-type': type }, payload: 'a=b' });
      expect(res.statusCode).toBe(415);
      expect(res.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
  });
  it('500 INTERNAL without details when the engine throws something unexpected', async () => {
    sync.failWith = new Error('relation "events" does not exist; password=hunter2');
    try {
      const res = await app.inject({ method: 'GET', url: '/api/sync/conflicts', headers: user });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ success: false, error: { code: 'INTERNAL', message: 'Internal server error' } });
      expect(res.body).not.toContain('hunter2');
    } finally {
      sync.failWith = null;
    }
  });
});

describe('health', () => {
  it('GET /health answers the spec object in the envelope', async () => {
    const res = await app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(true);
    expect(body.data.status).toBe('healthy');
    expect(Number.isNaN(Date.parse(body.data.timestamp))).toBe(false);
    expect(typeof body.data.uptime).toBe('number');
    for (const k of ['rss', 'heapTotal', 'heapUsed']) expect(body.data.memory[k]).toBeGreaterThan(0);
  });
  it('live and ready answer 200 when ready', async () => {
    expect((await app.inject({ method: 'GET', url: '/health/live' })).json()).toEqual({ success: true, data: { status: 'alive' } });
    expect((await app.inject({ method: 'GET', url: '/health/ready' })).json()).toEqual({ success: true, data: { status: 'ready' } });
  });
  it('ready answers 503 NOT_READY when readiness is false or throws', async () => {
    for (const readiness of [async () => false, async () => { throw new Error('db down'); }]) {
      const { app: other } = await build({ standIns: ['engine', 'sign-in'], readiness });
      try {
        const res = await other.inject({ method: 'GET', url: '/health/ready' });
        expect(res.statusCode).toBe(503);
        expect(res.json().error.code).toBe('NOT_READY');
      } finally {
        await other.close();
      }
    }
  });
});
