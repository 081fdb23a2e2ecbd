import { announceDatabaseKinds, openTestDatabase, type TestDatabase } from '@calsync/adapters-postgres/test-support';
import type { CapturingSmsSender } from '@calsync/testkit';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../test-support/index.js';

// The app wired as main.ts wires it (Postgres stores, real sign-in), on PGlite and, when
// TEST_DATABASE_URL is set, PostgreSQL.

for (const kind of announceDatabaseKinds('app wiring')) {
  describe(`the service on ${kind}`, () => {
    let database: TestDatabase;
    let app: FastifyInstance;
    let sms: CapturingSmsSender;
    let databaseUp = true;

    beforeAll(async () => {
      database = await openTestDatabase(kind);
      // A readiness probe the test can turn off, in front of the database's own ping.
      ({ app, sms } = await build({ database, readiness: async () => databaseUp && database.ping() }));
    });
    afterAll(async () => {
      await app?.close();
      await database?.close();
    });

    it('signs in, sees its default calendar in the first pull, pushes, and reads stats', async () => {
      const phone = '+15550002001';
      expect((await app.inject({ method: 'POST', url: '/api/auth/send-otp', payload: { phone } })).statusCode).toBe(200);
      const verified = await app.inject({ method: 'POST', url: '/api/auth/verify-otp', payload: { phone, otp: sms.lastCode(phone) } });
      const headers = { authorization: `Bearer ${verified.json().data.accessToken}` };

      const first = await app.inject({ method: 'GET', url: '/api/sync/changes', headers });
      expect(first.statusCode).toBe(200);
      const calendars = first.json().data.calendars as { uid: string; isDefault: boolean; name: string }[];
      expect(calendars).toHaveLength(1);
      expect(calendars[0]).toMatchObject({ isDefault: true, name: 'Personal' });

      const pushed = await app.inject({
        method: 'POST',
        url: '/api/sync/push',
        headers,
        payload: { events: [{ uid: 'ev-1', op: 'upsert', baseVersion: null, calendarUid: calendars[0]?.uid, title: 'Standup', startTime: '2026-03-02T09:00:00Z', endTime: '2026-03-02T09:15:00Z', rrule: 'FREQ=DAILY;COUNT=5' }] },
      });
      expect(pushed.statusCode).toBe(200);
      expect(pushed.json().data.events[0]).toMatchObject({ uid: 'ev-1', status: 'created' });

      const stats = await app.inject({ method: 'GET', url: '/api/users/stats', headers });
      expect(stats.json().data).toMatchObject({ calendars: 1, events: 1, tasks: 0, reminders: 0, unresolvedConflicts: 0 });
      const reset = await app.inject({ method: 'POST', url: '/api/users/reset-sync', headers });
      expect(reset.json().data.reset).toBe(true);
    });

    it('readiness follows the database', async () => {
      expect((await app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
      databaseUp = false;
      const down = await app.inject({ method: 'GET', url: '/health/ready' });
      databaseUp = true;
      expect(down.statusCode).toBe(503);
      expect(down.json().error.code).toBe('NOT_READY');
    });
  });
}
