import type { CapturingSmsSender } from '@calsync/testkit';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../test-support/index.js';

// The sync routes behind the REAL sign-in (auth plugin and routes, in-memory stores) and the real
// engine: a user signs in by SMS code and syncs; tokens are checked for real.

let app: FastifyInstance;
let sms: CapturingSmsSender;

beforeAll(async () => {
  ({ app, sms } = await build({ env: { RATE_LIMIT_MAX_REQUESTS: '1000', SESSION_CACHE_SECONDS: '0' }, seed: 15 }));
});
afterAll(async () => {
  await app.close();
});

async function signIn(phone: string): Promise<string> {
  const sent = await app.inject({ method: 'POST', url: '/api/auth/send-otp', payload: { phone } });
  expect(sent.statusCode).toBe(200);
  const verified = await app.inject({ method: 'POST', url: '/api/auth/verify-otp', payload: { phone, otp: sms.lastCode(phone) } });
  expect(verified.statusCode).toBe(200);
  return verified.json().data.accessToken as string;
}

describe('sync behind the real sign-in', () => {
  it('401 without a token or with a forged one, before the body is looked at', async () => {
    const none = await app.inject({ method: 'POST', url: '/api/sync/push', payload: { junk: 1 } });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('UNAUTHORIZED');
    const forged = await app.inject({ method: 'GET', url: '/api/sync/changes', headers: { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.' } });
    expect(forged.statusCode).toBe(401);
  });

  it('tags a pull page by what it answers: the same page again is 304, any change of it or a page of another cursor a new tag', async () => {
    const eve = { authorization: `Bearer ${await signIn('+15550001009')}` };
    const push = async (tasks: object[]) => (await app.inject({ method: 'POST', url: '/api/sync/push', headers: eve, payload: { tasks } })).json().data.tasks as { version: string }[];
    const pull = (query: string, etag?: string) => app.inject({ method: 'GET', url: `/api/sync/changes${query}`, headers: { ...eve, ...(etag === undefined ? {} : { 'if-none-match': etag }) } });
    const [a] = await push([{ uid: 'etag-a', op: 'upsert', baseVersion: null, title: 'a' }]);
    await push([{ uid: 'etag-b', op: 'upsert', baseVersion: null, title: 'b' }]);
    const first = await pull('?limit=1');
    const tag = first.headers.etag as string;
    expect([first.statusCode, first.json().data.tasks.map((t: { uid: string }) => t.uid), first.json().data.hasMore]).toEqual([200, ['etag-a'], true]);
    expect((await pull('?limit=1', tag)).statusCode).toBe(304);
    // The next page, and the whole first page at a larger limit: other pages, other tags.
    const next = await pull(`?limit=1&cursor=${encodeURIComponent(first.json().data.nextCursor as string)}`, tag);
    expect([next.statusCode, next.json().data.tasks.map((t: { uid: string }) => t.uid)]).toEqual([200, ['etag-b']]);
    expect(next.headers.etag).not.toBe(tag);
    const whole = await pull('', tag);
    expect([whole.statusCode, whole.json().data.tasks.length]).toEqual([200, 2]);
    expect(new Set([tag, next.headers.etag, whole.headers.etag]).size).toBe(3);
    // An edit of the record the first page held: the same request answers a new page under a new tag.
    await push([{ uid: 'etag-a', op: 'upsert', baseVersion: a!.version, title: 'a, edited' }]);
    const changed = await pull('?limit=1', tag);
    expect([changed.statusCode, changed.json().data.tasks.map((t: { title: string }) => t.title)]).toEqual([200, ['b']]);
    expect(changed.headers.etag).not.toBe(tag);
    expect((await pull('?limit=1', changed.headers.etag as string)).statusCode).toBe(304);
  });

  it('push, pull with cursor, stale push makes a conflict, resolve restores it; users are isolated', async () => {
    const ada = { authorization: `Bearer ${await signIn('+15550001001')}` };
    const bob = { authorization: `Bearer ${await signIn('+15550001002')}` };

    const created = await app.inject({ method: 'POST', url: '/api/sync/push', headers: ada, payload: { tasks: [{ uid: 'task-1', op: 'upsert', baseVersion: null, title: 'first' }] } });
    expect(created.statusCode).toBe(200);
    const v1 = created.json().data.tasks[0].version as string;
    expect(created.json().data.tasks[0]).toMatchObject({ uid: 'task-1', status: 'created' });
    expect(typeof v1).toBe('string');

    const pull = await app.inject({ method: 'GET', url: '/api/sync/changes', headers: ada });
    expect(pull.statusCode).toBe(200);
    expect(pull.json().data.cursorReset).toBe(true);
    expect(pull.json().data.tasks.map((t: { uid: string }) => t.uid)).toEqual(['task-1']);
    const cursor = pull.json().data.nextCursor as string;

    const bobPull = await app.inject({ method: 'GET', url: '/api/sync/changes', headers: bob });
    expect(bobPull.json().data.tasks).toEqual([]);

    const updated = await app.inject({ method: 'POST', url: '/api/sync/push', headers: ada, payload: { tasks: [{ uid: 'task-1', op: 'upsert', baseVersion: v1, title: 'second' }] } });
    expect(updated.json().data.tasks[0].status).toBe('updated');
    const stale = await app.inject({ method: 'POST', url: '/api/sync/push', headers: ada, payload: { tasks: [{ uid: 'task-1', op: 'upsert', baseVersion: v1, title: 'third' }] } });
    const staleResult = stale.json().data.tasks[0];
    expect(staleResult.status).toBe('conflict');
    expect(stale.json().data.conflicts).toHaveLength(1);

    const delta = await app.inject({ method: 'GET', url: `/api/sync/changes?cursor=${encodeURIComponent(cursor)}`, headers: ada });
    expect(delta.json().data.cursorReset).toBe(false);
    expect(delta.json().data.tasks.map((t: { title: string }) => t.title)).toEqual(['third']);

    const list = await app.inject({ method: 'GET', url: '/api/sync/conflicts', headers: ada });
    expect(list.json().data.conflicts.map((c: { conflictId: number }) => c.conflictId)).toEqual([staleResult.conflictId]);
    const bobResolve = await app.inject({ method: 'POST', url: `/api/sync/conflicts/${staleResult.conflictId}/resolve`, headers: bob, payload: { action: 'dismiss' } });
    expect(bobResolve.statusCode).toBe(404);
    const restored = await app.inject({ method: 'POST', url: `/api/sync/conflicts/${staleResult.conflictId}/resolve`, headers: ada, payload: { action: 'restore' } });
    expect(restored.statusCode).toBe(200);
    expect(restored.json().data.record).toMatchObject({ entityType: 'TASK', uid: 'task-1' });
    const again = await app.inject({ method: 'POST', url: `/api/sync/conflicts/${staleResult.conflictId}/resolve`, headers: ada, payload: { action: 'dismiss' } });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('CONFLICT_RESOLVED');
  });

  it('lists the sign-in and sync routes in a valid OpenAPI description', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/api-docs-json' })).json();
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    for (const path of ['/api/auth/send-otp', '/api/auth/verify-otp', '/api/auth/refresh', '/api/users/me', '/api/sync/push']) {
      expect(doc.paths[path], path).toBeDefined();
    }
  });
});
