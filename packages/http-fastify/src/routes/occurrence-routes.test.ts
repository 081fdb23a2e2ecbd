import type { SyncService } from '@calsync/domain';
import { FixedClock } from '@calsync/testkit';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etagOf } from '../plugins/private-cache.js';
import { build } from '../../test-support/index.js';

let app: FastifyInstance;
let sync: SyncService;
const user = { authorization: 'Bearer user-7' };

beforeAll(async () => {
  ({ app, sync } = await build({ standIns: ['sign-in'], engineClock: new FixedClock('2026-01-01T00:00:00.000Z') }));
  await sync.push(7, {
    calendars: [{ uid: 'cal', op: 'upsert', baseVersion: null, fields: { name: 'Home', timezone: 'Europe/Berlin' } }],
    events: [
      { uid: 'weekly', op: 'upsert', baseVersion: null, fields: { calendarUid: 'cal', title: 'Weekly', startTime: '2026-01-05T08:00:00.000Z', endTime: '2026-01-05T09:00:00.000Z', rrule: 'FREQ=WEEKLY' } },
      { uid: 'holiday', op: 'upsert', baseVersion: null, fields: { calendarUid: 'cal', title: 'Holiday', allDay: true, startTime: '2026-07-06', endTime: '2026-07-07' } },
    ],
  });
});
afterAll(async () => {
  await app?.close();
});

describe('GET /api/occurrences', () => {
  it('expands the series in its calendar\'s zone (09:00 Berlin is 07:00Z in July) beside the all-day date, with an ETag', async () => {
    const url = '/api/occurrences?from=2026-07-06T00:00:00Z&to=2026-07-13T00:00:00Z&tz=Europe/Berlin';
    const res = await app.inject({ method: 'GET', url, headers: user });
    expect(res.statusCode).toBe(200);
    const { data } = res.json();
    expect(data.truncated).toBe(false);
    expect(data.occurrences.map((o: { eventUid: string; start: string; timezone: string | null }) => [o.eventUid, o.start, o.timezone])).toEqual([
      ['holiday', '2026-07-06', null],
      ['weekly', '2026-07-06T07:00:00.000Z', 'Europe/Berlin'],
    ]);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    const again = await app.inject({ method: 'GET', url, headers: { ...user, 'if-none-match': String(res.headers.etag) } });
    expect(again.statusCode).toBe(304);
  });

  it('answers a view asked again the same body and ETag (another zone its own), and the changed view after a write', async () => {
    const url = (tz: string) => `/api/occurrences?from=2026-07-06T00:00:00Z&to=2026-07-13T00:00:00Z&tz=${tz}`;
    const first = await app.inject({ method: 'GET', url: url('Europe/Berlin'), headers: user });
    const again = await app.inject({ method: 'GET', url: url('Europe/Berlin'), headers: user });
    expect([again.statusCode, again.body, again.headers.etag, again.headers['content-type']]).toEqual([200, first.body, first.headers.etag, 'application/json; charset=utf-8']);
    // Tokyo's day of 6 July starts on 5 July at 15:00Z: the all-day date still overlaps, and the answer is Tokyo's own.
    const tokyo = await app.inject({ method: 'GET', url: url('Asia/Tokyo'), headers: user });
    expect(tokyo.statusCode).toBe(200);
    expect(tokyo.headers.etag).toBe(etagOf(tokyo.body));
    await sync.push(7, {
      events: [{ uid: 'party', op: 'upsert', baseVersion: null, fields: { calendarUid: 'cal', title: 'Party', startTime: '2026-07-10T18:00:00.000Z', endTime: '2026-07-10T22:00:00.000Z' } }],
    });
    const changed = await app.inject({ method: 'GET', url: url('Europe/Berlin'), headers: { ...user, 'if-none-match': String(first.headers.etag) } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(first.headers.etag);
    expect(changed.json().data.occurrences.map((o: { eventUid: string }) => o.eventUid)).toEqual(['holiday', 'weekly', 'party']);
  });

  it('answers 400 VALIDATION_ERROR for a window longer than 366 days, a bad instant, a bad zone, or a missing end', async () => {
    for (const qs of [
      'from=2026-01-01T00:00:00Z&to=2027-01-03T00:00:00Z',
      'from=tomorrow&to=2026-01-03T00:00:00Z',
      'from=2026-01-01T00:00:00Z&to=2026-01-03T00:00:00Z&tz=Mars/Olympus',
      'from=2026-01-01T00:00:00Z',
      'from=2026-01-03T00:00:00Z&to=2026-01-01T00:00:00Z',
    ]) {
      const res = await app.inject({ method: 'GET', url: `/api/occurrences?${qs}`, headers: user });
      expect([qs, res.statusCode, res.json().error?.code]).toEqual([qs, 400, 'VALIDATION_ERROR']);
    }
  });

  it('needs a bearer token', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/occurrences?from=2026-01-01T00:00:00Z&to=2026-01-03T00:00:00Z' });
    expect(res.statusCode).toBe(401);
  });
});
