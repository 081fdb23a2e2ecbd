import { openEventStream, type CapturingSmsSender, type InMemorySyncStore, type OpenedStream } from '@calsync/testkit';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { build } from '../../test-support/index.js';

// GET /api/sync/stream over a real listening server, the real sign-in and engine on in-memory
// stores; the store's in-process change feed carries the notifications.

interface Harness {
  readonly app: FastifyInstance;
  readonly base: string;
  readonly store: InMemorySyncStore;
  readonly sms: CapturingSmsSender;
  readonly streams: OpenedStream[];
}

let current: Harness | null = null;
let phones = 0;

afterEach(async () => {
  for (const s of current?.streams ?? []) s.close();
  await current?.app.close();
  current = null;
});

async function start(env: Record<string, string> = {}): Promise<Harness> {
  const { app, store, sms } = await build({ env: { RATE_LIMIT_MAX_REQUESTS: '1000', SESSION_CACHE_SECONDS: '0', ...env }, seed: 14, streams: { heartbeatMs: 150 } });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  current = { app, base: address, store, sms, streams: [] };
  return current;
}

/** Signs a new phone in with a device; returns its Bearer header. */
async function device(h: Harness, uid: string, phone = `+1555100${String(++phones).padStart(4, '0')}`): Promise<{ phone: string; headers: Record<string, string> }> {
  await fetch(`${h.base}/api/auth/send-otp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ phone }) });
  const res = await fetch(`${h.base}/api/auth/verify-otp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ phone, otp: h.sms.lastCode(phone), device: { uid, platform: 'web' } }),
  });
  const body = (await res.json()) as { data: { accessToken: string } };
  return { phone, headers: { authorization: `Bearer ${body.data.accessToken}` } };
}

async function stream(h: Harness, headers: Record<string, string>): Promise<OpenedStream> {
  const s = await openEventStream(`${h.base}/api/sync/stream`, headers);
  h.streams.push(s);
  return s;
}

async function push(h: Harness, headers: Record<string, string>, uid: string): Promise<string> {
  const res = await fetch(`${h.base}/api/sync/push`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ tasks: [{ uid, op: 'upsert', baseVersion: null, title: uid }] }),
  });
  const body = (await res.json()) as { data: { tasks: { version: string }[] } };
  return body.data.tasks[0]!.version;
}

describe('GET /api/sync/stream', () => {
  it('starts with ready (the newest version), then changed with id after pushes of the other devices only', async () => {
    const h = await start();
    const phone = await device(h, 'phone');
    const laptop = await device(h, 'laptop', phone.phone);
    const v0 = await push(h, phone.headers, 'before');
    const onLaptop = await stream(h, laptop.headers);
    const onPhone = await stream(h, phone.headers);
    expect(onLaptop.status).toBe(200);
    expect(onLaptop.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await onLaptop.nextEvent()).toEqual({ kind: 'event', event: 'ready', data: JSON.stringify({ version: v0 }), id: null });
    expect((await onPhone.nextEvent()).event).toBe('ready');

    const v1 = await push(h, phone.headers, 'from-phone');
    expect(await onLaptop.nextEvent()).toEqual({ kind: 'event', event: 'changed', data: JSON.stringify({ version: v1 }), id: v1 });
    const v2 = await push(h, laptop.headers, 'from-laptop');
    // The phone's own push was not sent to it: its first changed is the laptop's.
    expect(await onPhone.nextEvent()).toMatchObject({ event: 'changed', id: v2 });
    expect(BigInt(v2) > BigInt(v1)).toBe(true);
  });

  it('a push that makes a conflict sends conflict to the other devices with its changed; nothing once conflictAlerts is off', async () => {
    const h = await start();
    const phone = await device(h, 'phone');
    const laptop = await device(h, 'laptop', phone.phone);
    const v0 = await push(h, phone.headers, 'shared');
    const onLaptop = await stream(h, laptop.headers);
    expect((await onLaptop.nextEvent()).event).toBe('ready');
    /** The phone edits the shared task from version v0 (stale after the first edit); answers the push's data. */
    const edit = async (title: string) => {
      const res = await fetch(`${h.base}/api/sync/push`, {
        method: 'POST',
        headers: { ...phone.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ tasks: [{ uid: 'shared', op: 'upsert', baseVersion: v0, title }] }),
      });
      return ((await res.json()) as { data: { tasks: { version: string }[]; conflicts: { conflictId: number }[] } }).data;
    };
    const first = await edit('first');
    expect(first.conflicts).toEqual([]);
    expect(await onLaptop.nextEvent()).toMatchObject({ event: 'changed', id: first.tasks[0]!.version });
    const clash = await edit('stale');
    expect(clash.conflicts).toHaveLength(1);
    expect(await onLaptop.nextEvent()).toMatchObject({ event: 'changed', id: clash.tasks[0]!.version });
    expect(await onLaptop.nextEvent()).toMatchObject({
      event: 'conflict',
      data: JSON.stringify({ conflictId: clash.conflicts[0]!.conflictId, entityType: 'TASK', entityUid: 'shared' }),
    });

    const off = await fetch(`${h.base}/api/users/me`, {
      method: 'PATCH',
      headers: { ...phone.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ notificationSettings: { conflictAlerts: false } }),
    });
    expect(off.status).toBe(200);
    const quiet = await edit('stale again');
    expect(quiet.conflicts).toHaveLength(1);
    expect(await onLaptop.nextEvent()).toMatchObject({ event: 'changed', id: quiet.tasks[0]!.version });
    const after = await push(h, phone.headers, 'after');
    // The next event is the next push's changed: no conflict came between.
    expect(await onLaptop.nextEvent()).toMatchObject({ event: 'changed', id: after });
  });

  it('keeps the stream open with comment lines (heartbeat)', async () => {
    const h = await start();
    const a = await device(h, 'a');
    const s = await stream(h, a.headers);
    await s.nextEvent();
    expect(await s.next(3000)).toEqual({ kind: 'comment', text: 'heartbeat' });
  });

  it('a Last-Event-ID older than the newest version gets an immediate changed; the newest one does not', async () => {
    const h = await start();
    const a = await device(h, 'a');
    const b = await device(h, 'b', a.phone);
    const v1 = await push(h, a.headers, 't1');
    const v2 = await push(h, a.headers, 't2');
    const behind = await stream(h, { ...b.headers, 'last-event-id': v1 });
    expect(await behind.nextEvent()).toMatchObject({ event: 'ready', data: JSON.stringify({ version: v2 }) });
    expect(await behind.nextEvent()).toMatchObject({ event: 'changed', id: v2 });
    const upToDate = await stream(h, { ...b.headers, 'last-event-id': v2 });
    await upToDate.nextEvent();
    expect(await upToDate.next(3000)).toMatchObject({ kind: 'comment' });
    const bad = await stream(h, { ...b.headers, 'last-event-id': 'yesterday' });
    expect(bad.status).toBe(400);
    expect(bad.refusal).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
  });

  it('refuses without a token (401), beyond STREAM_MAX_PER_USER (429) and STREAM_MAX_CONNECTIONS (503)', async () => {
    const h = await start({ STREAM_MAX_PER_USER: '2', STREAM_MAX_CONNECTIONS: '3' });
    expect((await stream(h, {})).status).toBe(401);
    const a = await device(h, 'a');
    const first = await stream(h, a.headers);
    await stream(h, a.headers);
    const third = await stream(h, a.headers);
    expect(third.status).toBe(429);
    expect(third.refusal).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    const b = await device(h, 'b');
    await stream(h, b.headers);
    const full = await stream(h, b.headers);
    expect(full.status).toBe(503);
    expect(full.refusal).toMatchObject({ error: { code: 'TOO_MANY_STREAMS' } });
    first.close();
    // The slot frees once the server sees the connection gone.
    let again: OpenedStream | null = null;
    for (let i = 0; i < 50 && again?.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 20));
      again = await stream(h, a.headers);
    }
    expect(again?.status).toBe(200);
  });

  it('opening counts against the per-user rate limit; events on an open stream do not', async () => {
    const h = await start({ RATE_LIMIT_MAX_REQUESTS: '4' });
    const a = await device(h, 'a');
    const b = await device(h, 'b', a.phone);
    const s = await stream(h, b.headers);
    await s.nextEvent();
    await push(h, a.headers, 'x1');
    await s.nextEvent();
    await s.next(3000); // a heartbeat went by
    const pulls = [];
    for (let i = 0; i < 2; i++) pulls.push((await fetch(`${h.base}/api/sync/changes`, { headers: a.headers })).status);
    expect(pulls).toEqual([200, 200]);
    // 4 counted so far: the stream, the push, two pulls.
    expect((await fetch(`${h.base}/api/sync/changes`, { headers: a.headers })).status).toBe(429);
  });

  it('closes with revoked on logout and on device revoke, and with expired when the access token expires', async () => {
    const h = await start({ JWT_ACCESS_EXPIRES_IN: '3' });
    const a = await device(h, 'a');
    const b = await device(h, 'b', a.phone);
    const c = await device(h, 'c', a.phone);
    const onA = await stream(h, a.headers);
    const onB = await stream(h, b.headers);
    const onC = await stream(h, c.headers);
    for (const s of [onA, onB, onC]) await s.nextEvent();
    expect((await fetch(`${h.base}/api/auth/logout`, { method: 'POST', headers: a.headers })).status).toBe(200);
    expect(await onA.nextEvent()).toMatchObject({ event: 'closed', data: JSON.stringify({ reason: 'revoked' }) });
    expect((await fetch(`${h.base}/api/auth/devices/b`, { method: 'DELETE', headers: c.headers })).status).toBe(200);
    expect(await onB.nextEvent()).toMatchObject({ event: 'closed', data: JSON.stringify({ reason: 'revoked' }) });
    await expect(onB.next(1000)).rejects.toThrow('ended');
    expect(await onC.nextEvent(6000)).toMatchObject({ event: 'closed', data: JSON.stringify({ reason: 'expired' }) });
  });

  it('after the feed lost notifications every stream gets changed with the newest version', async () => {
    const h = await start();
    const a = await device(h, 'a');
    const s1 = await stream(h, a.headers);
    const s2 = await stream(h, a.headers);
    await s1.nextEvent();
    await s2.nextEvent();
    const v = await push(h, a.headers, 'own');
    h.store.changes.resync();
    expect(await s1.nextEvent()).toMatchObject({ event: 'changed', id: v });
    expect(await s2.nextEvent()).toMatchObject({ event: 'changed', id: v });
  });

  it('ends every stream with closed: shutdown when the server drains', async () => {
    const h = await start();
    const a = await device(h, 'a');
    const s = await stream(h, a.headers);
    await s.nextEvent();
    const closing = h.app.close();
    expect(await s.nextEvent()).toMatchObject({ event: 'closed', data: JSON.stringify({ reason: 'shutdown' }) });
    await closing;
    current = null;
  });

  it('is in the OpenAPI document as text/event-stream', async () => {
    const h = await start();
    const doc = (await (await fetch(`${h.base}/api-docs-json`)).json()) as { paths: Record<string, { get?: { responses: Record<string, { content?: Record<string, unknown> }> } }> };
    const op = doc.paths['/api/sync/stream']?.get;
    expect(Object.keys(op?.responses['200']?.content ?? {})).toEqual(['text/event-stream']);
    expect(Object.keys(op?.responses ?? {})).toEqual(expect.arrayContaining(['401', '429', '503']));
  });
});
