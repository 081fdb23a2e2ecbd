import { announceDatabaseKinds, openTestDatabase, type TestDatabase } from '@calsync/adapters-postgres/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type TestApp } from '../test-support/index.js';

// Text and instants PostgreSQL cannot store, sent to the app wired as main.ts wires it (batch push)
// on PGlite and PostgreSQL: each is refused as a per-item INVALID_FIELD in a push (the other items
// of the batch still apply) or as 400 VALIDATION_ERROR elsewhere; never a 500.

const NUL = 'x\u0000y';
const LONE = 'x\ud800y';

for (const kind of announceDatabaseKinds('hostile input')) {
  describe(`hostile text and instants on ${kind}`, () => {
    let database: TestDatabase;
    let wired: TestApp;
    let headers: { authorization: string };
    let calendarUid: string;

    beforeAll(async () => {
      database = await openTestDatabase(kind);
      wired = await build({ database });
      headers = await wired.signIn('+15550009001');
      const pulled = await wired.app.inject({ method: 'GET', url: '/api/sync/changes', headers });
      calendarUid = pulled.json().data.calendars[0].uid;
    });
    afterAll(async () => {
      await wired?.app.close();
      await database?.close();
    });

    const event = (uid: string, extra: Record<string, unknown> = {}) => ({
      uid,
      op: 'upsert',
      baseVersion: null,
      calendarUid,
      title: 'Standup',
      startTime: '2026-03-02T09:00:00Z',
      endTime: '2026-03-02T09:15:00Z',
      ...extra,
    });

    const poisoned: [string, string, Record<string, unknown>][] = [
      ['events', 'NUL in description', { description: NUL }],
      ['events', 'NUL in title', { title: NUL }],
      ['events', 'lone surrogate in location', { location: LONE }],
      ['events', 'NUL in calendarUid', { calendarUid: NUL }],
      ['events', 'NUL in timezone', { timezone: `Europe/Paris${NUL}` }],
      ['events', 'NUL in rrule', { rrule: `FREQ=DAILY${NUL}` }],
      ['events', 'NUL in exdate', { exdate: `2026-03-03T09:00:00Z${NUL}` }],
      ['events', 'year 0000 startTime', { startTime: '0000-01-01T00:00:00Z' }],
      ['events', 'year 0001 pushed before 0001 by its offset', { startTime: '0001-01-01T00:30:00+01:00' }],
      ['events', 'year 9999 pushed past 9999 by its offset', { endTime: '9999-12-31T23:30:00-01:00' }],
    ];

    it.each(poisoned)('push: %s %s is that item\'s INVALID_FIELD, the valid item still applies', async (_type, what, extra) => {
      const good = `good-${what.replace(/[^a-z0-9]/gi, '')}`;
      const res = await wired.app.inject({
        method: 'POST',
        url: '/api/sync/push',
        headers,
        payload: { events: [event(good), event('bad-one', extra)] },
      });
      expect(res.statusCode).toBe(200);
      const [first, second] = res.json().data.events;
      expect(first).toMatchObject({ uid: good, status: 'created' });
      expect(second).toMatchObject({ uid: 'bad-one', status: 'error', error: { retryable: false } });
      expect(['INVALID_FIELD', 'INVALID_RRULE', 'INVALID_EXDATE']).toContain(second.error.code);
      // Retrying the same batch gives the same answers: the outbox is not blocked.
      const again = await wired.app.inject({ method: 'POST', url: '/api/sync/push', headers, payload: { events: [event(good), event('bad-one', extra)] } });
      expect(again.json().data.events.map((r: { status: string }) => r.status)).toEqual(['created', 'error']);
    });

    it('push: NUL in task parentTaskUid, task dueAt in year 0000, reminder remindAt in year 0000 are per-item errors', async () => {
      const res = await wired.app.inject({
        method: 'POST',
        url: '/api/sync/push',
        headers,
        payload: {
          tasks: [
            { uid: 't-ok', op: 'upsert', baseVersion: null, title: 'fine' },
            { uid: 't-nul', op: 'upsert', baseVersion: null, title: 'sub', parentTaskUid: NUL },
            { uid: 't-old', op: 'upsert', baseVersion: null, title: 'old', dueAt: '0000-06-01T00:00:00Z' },
          ],
          reminders: [{ uid: 'r-old', op: 'upsert', baseVersion: null, taskUid: 't-ok', remindAt: '0000-06-01T00:00:00Z' }],
          calendars: [{ uid: 'c-nul', op: 'upsert', baseVersion: null, name: `Work${NUL}` }],
        },
      });
      expect(res.statusCode).toBe(200);
      const data = res.json().data;
      expect(data.tasks.map((r: { status: string }) => r.status)).toEqual(['created', 'error', 'error']);
      expect(data.reminders[0]).toMatchObject({ status: 'error', error: { code: 'INVALID_FIELD' } });
      expect(data.calendars[0]).toMatchObject({ status: 'error', error: { code: 'INVALID_FIELD' } });
    });

    const refused: [string, string, string, unknown][] = [
      ['send-otp name', 'POST', '/api/auth/send-otp', { phone: '+15550009002', name: NUL }],
      ['verify-otp device name', 'POST', '/api/auth/verify-otp', { phone: '+15550009002', otp: '123456', device: { uid: 'd1', name: NUL } }],
      ['login e-mail', 'POST', '/api/auth/login', { email: `a${NUL}@example.com`, password: 'password-1' }],
      ['login password', 'POST', '/api/auth/login', { email: 'a@example.com', password: `pass${NUL}word` }],
      ['refresh token', 'POST', '/api/auth/refresh', { refreshToken: NUL }],
      ['a lone surrogate in send-otp name', 'POST', '/api/auth/send-otp', { phone: '+15550009002', name: LONE }],
    ];
    it.each(refused)('%s with NUL is 400 VALIDATION_ERROR', async (_what, method, url, payload) => {
      const res = await wired.app.inject({ method: method as 'POST', url, payload: payload as object });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    });

    it('PATCH /api/users/me, DELETE /api/auth/devices/%00 and a NUL in a resolve body are 400 VALIDATION_ERROR', async () => {
      const patch = await wired.app.inject({ method: 'PATCH', url: '/api/users/me', headers, payload: { name: NUL } });
      expect(patch.statusCode).toBe(400);
      expect(patch.json().error.code).toBe('VALIDATION_ERROR');
      const email = await wired.app.inject({ method: 'PATCH', url: '/api/users/me', headers, payload: { email: `z${NUL}@example.com` } });
      expect(email.statusCode).toBe(400);
      const revoke = await wired.app.inject({ method: 'DELETE', url: '/api/auth/devices/%00', headers });
      expect(revoke.statusCode).toBe(400);
      expect(revoke.json().error.code).toBe('VALIDATION_ERROR');
      const resolve = await wired.app.inject({ method: 'POST', url: '/api/sync/conflicts/1/resolve', headers, payload: { action: `restore${NUL}` } });
      expect(resolve.statusCode).toBe(400);
      // The user is untouched and the service still answers.
      const me = await wired.app.inject({ method: 'GET', url: '/api/auth/me', headers });
      expect(me.statusCode).toBe(200);
    });

    it('no storage failure was attributed to an item: validation caught everything first', () => {
      expect(wired.itemFailures).toEqual([]);
    });
  });
}
