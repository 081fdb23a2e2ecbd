import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { decodePull, type EncodedPullResponse } from '@calsync/domain';
import { pullBody } from './sync-routes.js';
import { asUser, build } from '../../test-support/index.js';
import type { RecordingSyncApi } from '../../test-support/index.js';

let app: FastifyInstance;
let sync: RecordingSyncApi;
beforeAll(async () => {
  ({ app, recording: sync } = await build({ standIns: ['engine', 'sign-in'] }));
});
afterAll(async () => {
  await app.close();
});

const user = asUser(7);
const push = (payload: unknown, headers: Record<string, string> = user) => app.inject({ method: 'POST', url: '/api/sync/push', headers, payload: payload as object });
const lastCall = () => sync.calls.at(-1);

describe('POST /api/sync/push', () => {
  it('401 UNAUTHORIZED without a token, even with a bad body', async () => {
    const res = await push({ nonsense: true }, {});
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('UNAUTHORIZED');
  });

  it('passes only table fields to the engine, drops read-only stamps, answers 200 with results', async () => {
    const res = await push({
      events: [
        { uid: 'ev_1', op: 'upsert', baseVersion: '12', title: 'T', rrule: null, id: 9, version: '12', createdAt: 'x', updatedAt: 'y', deleted: null, syncStatus: 'PENDING', lastSyncTime: null },
      ],
      calendars: [{ uid: 'cal-1', op: 'delete', baseVersion: null }],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().success).toBe(true);
    expect(res.json().data.events[0]).toMatchObject({ uid: 'ev_1', status: 'created' });
    expect(lastCall()).toEqual({
      method: 'push',
      userId: 7,
      arg: {
        calendars: [{ uid: 'cal-1', op: 'delete', baseVersion: null, fields: {} }],
        events: [{ uid: 'ev_1', op: 'upsert', baseVersion: '12', fields: { title: 'T', rrule: null } }],
      },
    });
  });

  it('treats an absent baseVersion as null', async () => {
    await push({ tasks: [{ uid: 't1', op: 'upsert', title: 'x' }] });
    expect(lastCall()?.arg).toEqual({ tasks: [{ uid: 't1', op: 'upsert', baseVersion: null, fields: { title: 'x' } }] });
  });

  it.each([
    ['an unknown field', { events: [{ uid: 'e', op: 'upsert', baseVersion: null, colour: 'red' }] }, 'body/events/0/colour'],
    ['a numeric baseVersion', { events: [{ uid: 'e', op: 'upsert', baseVersion: 12 }] }, 'body/events/0/baseVersion'],
    ['a uid of the wrong form', { tasks: [{ uid: 'bad uid!', op: 'upsert', baseVersion: null }] }, 'body/tasks/0/uid'],
    ['a too long uid', { tasks: [{ uid: 'a'.repeat(129), op: 'upsert', baseVersion: null }] }, 'body/tasks/0/uid'],
    ['an unknown op', { reminders: [{ uid: 'r', op: 'merge', baseVersion: null }] }, 'body/reminders/0/op'],
    ['a missing uid', { calendars: [{ op: 'upsert', baseVersion: null }] }, 'body/calendars/0/uid'],
    ['a wrong field type', { calendars: [{ uid: 'c', op: 'upsert', baseVersion: null, isDefault: 'yes' }] }, 'body/calendars/0/isDefault'],
    ['null on a non-nullable field', { events: [{ uid: 'e', op: 'upsert', baseVersion: null, title: null }] }, 'body/events/0/title'],
    ['an unknown top-level array', { notARecordType: [] }, 'body/notARecordType'],
    ['an array that is not an array', { events: {} }, 'body/events'],
  ])('400 VALIDATION_ERROR with the failing path for %s', async (_name, body, path) => {
    const calls = sync.calls.length;
    const res = await push(body);
    expect(res.statusCode).toBe(400);
    const error = res.json().error;
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(sync.calls.length).toBe(calls);
  });

  it('accepts null on nullable fields', async () => {
    const res = await push({ tasks: [{ uid: 't', op: 'upsert', baseVersion: '3', notes: null, priority: null, dueAt: null, parentTaskUid: null }] });
    expect(res.statusCode).toBe(200);
  });

  it('400 EMPTY_CHANGESET when no array has items', async () => {
    for (const body of [{}, { calendars: [], events: [] }]) {
      const res = await push(body);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('EMPTY_CHANGESET');
    }
  });

  it('413 BATCH_TOO_LARGE for more than 1000 items in one array, checked before item validation', async () => {
    const items = Array.from({ length: 1001 }, () => ({ garbage: true }));
    const res = await push({ events: items });
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toMatchObject({ code: 'BATCH_TOO_LARGE', details: { array: 'events', items: 1001, max: 1000 } });
  });

  it('accepts exactly 1000 items in one array', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({ uid: `c${i}`, op: 'delete', baseVersion: null }));
    const res = await push({ calendars: items });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.calendars).toHaveLength(1000);
  });
});

describe('GET /api/sync/changes', () => {
  it('passes cursor and the integer limit to the engine (which clamps it, see page-limits.test.ts)', async () => {
    const cases: [string, unknown][] = [
      ['?cursor=abc&limit=20', { cursor: 'abc', limit: 20 }],
      ['', {}],
      ['?limit=0', { limit: 0 }],
      ['?limit=-5', { limit: -5 }],
      ['?limit=5000', { limit: 5000 }],
      ['?limit=9007199254740991', { limit: 9007199254740991 }],
      ['?limit=-9007199254740991', { limit: -9007199254740991 }],
    ];
    for (const [qs, arg] of cases) {
      const res = await app.inject({ method: 'GET', url: `/api/sync/changes${qs}`, headers: user });
      expect(res.statusCode).toBe(200);
      expect(lastCall()).toEqual({ method: 'pull', userId: 7, arg });
    }
  });

  it('400 VALIDATION_ERROR for a non-integer limit', async () => {
    // Not integers by the one rule (plugins/integer-params.ts): integer-params.pg.test.ts tries more.
    for (const limit of ['abc', '1.5', '', 'Infinity', '0x10', '99999999999999999999']) {
      const res = await app.inject({ method: 'GET', url: `/api/sync/changes?limit=${limit}`, headers: user });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('answers JSON: the success envelope of the page, records and all', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/sync/changes', headers: user });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual({ success: true, data: await sync.pull(7, {}) });
  });

  it('writes the body around each record\'s JSON text, as UTF-8, exactly as JSON.stringify writes the decoded page', () => {
    const record = (uid: string) => ({ title: 'He said "hi"\n – Zürich 🗓', uid, version: '12', deleted: null, done: false, n: 3 });
    const of = (...records: object[]) => records.map((r) => JSON.stringify(r));
    const pages: EncodedPullResponse[] = [
      { records: { calendars: of(), events: of(), tasks: of(), reminders: of() }, cursorReset: false, nextCursor: 'c.2', hasMore: false, newestConflictId: null },
      {
        records: { calendars: of(record('c1')), events: of(record('e1'), record('e2')), tasks: of(), reminders: of(record('r"1')) },
        cursorReset: true,
        nextCursor: 'x"y\\z',
        hasMore: true,
        newestConflictId: 9007199254740991,
      },
    ];
    for (const page of pages) expect(pullBody(page).equals(Buffer.from(JSON.stringify({ success: true, data: decodePull(page) })))).toBe(true);
  });

  it('sends Cache-Control and ETag, and 304 on a matching If-None-Match', async () => {
    const first = await app.inject({ method: 'GET', url: '/api/sync/changes', headers: user });
    expect(first.headers['cache-control']).toBe('private, no-cache');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^".+"$/);
    expect(first.json().data).toMatchObject({ cursorReset: true, nextCursor: 'c.1', hasMore: false, calendars: [{ uid: 'cal-1', name: 'Personal' }] });
    const again = await app.inject({ method: 'GET', url: '/api/sync/changes', headers: { ...user, 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const other = await app.inject({ method: 'GET', url: '/api/sync/changes', headers: { ...user, 'if-none-match': '"nope"' } });
    expect(other.statusCode).toBe(200);
  });

  it('answers 200, not 304, once a new conflict is unresolved though the records are the same', async () => {
    const first = await app.inject({ method: 'GET', url: '/api/sync/changes', headers: user });
    expect(first.json().data.newestConflictId).toBe(null);
    sync.newestConflictId = 8;
    try {
      const again = await app.inject({ method: 'GET', url: '/api/sync/changes', headers: { ...user, 'if-none-match': first.headers.etag as string } });
      expect(again.statusCode).toBe(200);
      expect(again.json().data.newestConflictId).toBe(8);
      // Same digits count, another id: still a new page.
      sync.newestConflictId = 9;
      const third = await app.inject({ method: 'GET', url: '/api/sync/changes', headers: { ...user, 'if-none-match': again.headers.etag as string } });
      expect(third.statusCode).toBe(200);
    } finally {
      sync.newestConflictId = null;
    }
  });
});

describe('conflicts', () => {
  it('lists with afterId and limit passed to the engine as integers', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/sync/conflicts?afterId=10&limit=999', headers: user });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, data: { conflicts: [], hasMore: false, nextAfterId: null } });
    expect(res.headers.etag).toBeTruthy();
    expect(lastCall()).toEqual({ method: 'listConflicts', userId: 7, arg: { afterId: 10, limit: 999 } });
    await app.inject({ method: 'GET', url: '/api/sync/conflicts', headers: user });
    expect(lastCall()?.arg).toEqual({});
    const huge = await app.inject({ method: 'GET', url: '/api/sync/conflicts?afterId=9007199254740991&limit=-9007199254740991', headers: user });
    expect(huge.statusCode).toBe(200);
    expect(lastCall()?.arg).toEqual({ afterId: 9007199254740991, limit: -9007199254740991 });
    const unsafe = await app.inject({ method: 'GET', url: '/api/sync/conflicts?afterId=99999999999999999999', headers: user });
    expect(unsafe.statusCode).toBe(400);
  });

  it('resolves with restore or dismiss', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/sync/conflicts/3/resolve', headers: user, payload: { action: 'restore' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.record).toEqual({ entityType: 'EVENT', uid: 'e1', version: '6' });
    expect(lastCall()).toEqual({ method: 'resolveConflict', userId: 7, arg: { conflictId: 3, action: 'restore' } });
    const dismissed = await app.inject({ method: 'POST', url: '/api/sync/conflicts/3/resolve', headers: user, payload: { action: 'dismiss' } });
    expect(dismissed.json().data.record).toBeNull();
  });

  it('400 VALIDATION_ERROR for a non-integer id or an unknown action; 404 from the engine', async () => {
    for (const id of ['abc', '1.5', '-1']) {
      const res = await app.inject({ method: 'POST', url: `/api/sync/conflicts/${id}/resolve`, headers: user, payload: { action: 'dismiss' } });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    const badAction = await app.inject({ method: 'POST', url: '/api/sync/conflicts/3/resolve', headers: user, payload: { action: 'undo' } });
    expect(badAction.statusCode).toBe(400);
    const missing = await app.inject({ method: 'POST', url: '/api/sync/conflicts/404/resolve', headers: user, payload: { action: 'dismiss' } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('NOT_FOUND');
  });
});

describe('legacy routes', () => {
  it('GET /api/users/stats answers the counts with cache headers', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/users/stats', headers: user });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ calendars: 1, events: 2, syncStatus: { SYNCED: 2, PENDING: 0, CONFLICT: 0 }, lastSyncTime: null });
    expect(res.headers['cache-control']).toBe('private, no-cache');
    expect(res.headers.etag).toBeTruthy();
  });
  it('POST /api/users/reset-sync answers reset and the count', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/users/reset-sync', headers: user });
    expect(res.json()).toEqual({ success: true, data: { reset: true, eventsReset: 2 } });
  });
  it('both need a token', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/users/stats' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/api/users/reset-sync' })).statusCode).toBe(401);
  });
});

describe('baseVersion bounds', () => {
  it('400 for leading zeros or a value beyond 64 bits', async () => {
    for (const baseVersion of ['007', '9223372036854775808', '12345678901234567890']) {
      const res = await push({ events: [{ uid: 'e', op: 'delete', baseVersion }] });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.details[0].path).toBe('body/events/0/baseVersion');
    }
    expect((await push({ events: [{ uid: 'e', op: 'delete', baseVersion: '9223372036854775807' }] })).statusCode).toBe(200);
  });
});
