import { Validator } from '@seriousme/openapi-schema-validator';
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { asUser, build } from '../test-support/index.js';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const user = asUser(7);

describe('rate limit', () => {
  it('429 RATE_LIMITED with Retry-After after RATE_LIMIT_MAX_REQUESTS per user, other users unaffected', async () => {
    ({ app } = await build({ standIns: ['engine', 'sign-in'], env: { RATE_LIMIT_MAX_REQUESTS: '3', RATE_LIMIT_WINDOW_MS: '60000' } }));
    for (let i = 0; i < 3; i++) {
      expect((await app.inject({ method: 'GET', url: '/api/sync/conflicts', headers: user })).statusCode).toBe(200);
    }
    const limited = await app.inject({ method: 'GET', url: '/api/sync/conflicts', headers: user });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers['x-request-id']).toBeTruthy();
    const other = await app.inject({ method: 'GET', url: '/api/sync/conflicts', headers: asUser(8) });
    expect(other.statusCode).toBe(200);
  });
  it('counts one user across every protected route: the limit is per user, not per route', async () => {
    ({ app } = await build({ standIns: ['engine', 'sign-in'], env: { RATE_LIMIT_MAX_REQUESTS: '4', RATE_LIMIT_WINDOW_MS: '60000' } }));
    const calls = [
      { method: 'GET' as const, url: '/api/sync/conflicts' },
      { method: 'GET' as const, url: '/api/sync/changes' },
      { method: 'GET' as const, url: '/api/users/stats' },
      { method: 'POST' as const, url: '/api/sync/push', payload: { events: [{ uid: 'e1', op: 'delete', baseVersion: null }] } },
    ];
    for (const call of calls) expect((await app.inject({ ...call, headers: user })).statusCode, call.url).toBe(200);
    for (const call of calls) {
      const res = await app.inject({ ...call, headers: user });
      expect([call.url, res.statusCode, res.json().error?.code]).toEqual([call.url, 429, 'RATE_LIMITED']);
    }
  });
  it('does not limit the public health routes', async () => {
    ({ app } = await build({ standIns: ['engine', 'sign-in'], env: { RATE_LIMIT_MAX_REQUESTS: '1' } }));
    for (let i = 0; i < 3; i++) expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });
});

describe('/metrics', () => {
  it('shows request histograms by route and status and the sync counters', async () => {
    ({ app } = await build({ standIns: ['engine', 'sign-in'] }));
    await app.inject({ method: 'POST', url: '/api/sync/push', headers: user, payload: { events: [{ uid: 'e1', op: 'upsert', baseVersion: null, title: 't' }, { uid: 'e2', op: 'delete', baseVersion: '1' }] } });
    await app.inject({ method: 'GET', url: '/api/sync/changes', headers: user });
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    const text = res.body;
    expect(text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/api\/sync\/push"[^}]*status_code="200"[^}]*\} 1/);
    expect(text).toContain('calsync_sync_push_items_total{type="events",status="created"} 1');
    expect(text).toContain('calsync_sync_push_items_total{type="events",status="deleted"} 1');
    expect(text).toContain('calsync_sync_pull_rows_total{type="calendars"} 1');
    expect(text).toContain('calsync_sync_cursor_resets_total{cursor_sent="false"} 1');
    expect(text).toContain('calsync_sync_conflicts_created_total');
  });
});

describe('OpenAPI', () => {
  it('/api-docs-json is a valid OpenAPI 3 description listing every route', async () => {
    ({ app } = await build({ standIns: ['engine', 'sign-in'] }));
    const res = await app.inject({ method: 'GET', url: '/api-docs-json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toMatch(/^3\./);
    const expected: [string, string][] = [
      ['/api/sync/push', 'post'],
      ['/api/sync/changes', 'get'],
      ['/api/sync/conflicts', 'get'],
      ['/api/sync/conflicts/{id}/resolve', 'post'],
      ['/api/users/stats', 'get'],
      ['/api/users/reset-sync', 'post'],
      ['/health', 'get'],
      ['/health/live', 'get'],
      ['/health/ready', 'get'],
    ];
    for (const [path, method] of expected) expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    // Named component schemas: the push body refers to PushRequest, whose events are EventPushItems.
    expect(doc.paths['/api/sync/push'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/PushRequest' });
    expect(doc.components.schemas.PushRequest.properties.events.items).toEqual({ $ref: '#/components/schemas/EventPushItem' });
    const pushItem = doc.components.schemas.EventPushItem;
    expect(pushItem.properties.calendarUid).toBeDefined();
    expect(pushItem.additionalProperties).toBe(false);
    // Every route documents the error answers it can give, not only its own 4xx.
    const codes = (path: string, method: string) => Object.keys(doc.paths[path][method].responses).sort();
    expect(codes('/api/sync/push', 'post')).toEqual(['200', '400', '401', '403', '413', '415', '429', '500', '503']);
    expect(codes('/api/sync/changes', 'get')).toEqual(['200', '400', '401', '403', '429', '500', '503']);
    expect(doc.paths['/api/sync/changes'].get.responses['503'].description).toContain('DATABASE_UNAVAILABLE');
    expect(codes('/health/ready', 'get')).toEqual(['200', '500', '503']);
    expect(doc.paths['/api/sync/push'].post.responses['413'].description).toContain('PAYLOAD_TOO_LARGE');
    expect(doc.paths['/api/sync/push'].post.responses['413'].description).toContain('BATCH_TOO_LARGE');
    // error.code is the enum of exactly what the route answers with that status.
    const codeEnum = (path: string, method: string, status: string) =>
      doc.paths[path][method].responses[status].content['application/json'].schema.properties.error.properties.code.enum;
    expect(codeEnum('/api/sync/push', 'post', '413')).toEqual(['PAYLOAD_TOO_LARGE', 'BATCH_TOO_LARGE']);
    expect(codeEnum('/api/sync/push', 'post', '400')).toEqual(['VALIDATION_ERROR', 'INVALID_JSON', 'EMPTY_CHANGESET']);
    expect(codeEnum('/api/sync/conflicts/{id}/resolve', 'post', '409')).toEqual(['CONFLICT_RESOLVED', 'UNKNOWN_REFERENCE']);
    // Every operation has an id, a summary and a real description on every response.
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { operationId?: string; summary?: string; responses: Record<string, { description: string }> }>>)) {
      for (const [method, op] of Object.entries(item)) {
        expect(op.operationId, `${method} ${path}`).toBeTruthy();
        expect(op.summary, `${method} ${path}`).toBeTruthy();
        for (const [status, response] of Object.entries(op.responses)) expect(response.description, `${method} ${path} ${status}`).not.toBe('Default Response');
      }
    }
    expect(doc.paths['/metrics'].get.responses['200'].content['text/plain']).toBeDefined();
  });
  it('serves Swagger UI at /api-docs', async () => {
    ({ app } = await build({ standIns: ['engine', 'sign-in'] }));
    const res = await app.inject({ method: 'GET', url: '/api-docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
  });
});
