import type { AppPasswordService, DeviceStore, PushItem, SyncService } from '@calsync/domain';
import { FixedClock, ManualAuthClock } from '@calsync/testkit';
import ICAL from 'ical.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../test-support/index.js';

let app: FastifyInstance;
let appPasswords: AppPasswordService;
let devices: DeviceStore;
let sync: SyncService;
const user = { authorization: 'Bearer user-7' };
let phoneUserId = 0;

beforeAll(async () => {
  const clock = new FixedClock('2026-01-01T00:00:00.000Z');
  const t = await build({ standIns: ['sign-in'], interop: true, clock, engineClock: clock, seed: 21 });
  ({ app, devices } = t);
  sync = t.sync;
  appPasswords = t.interop.appPasswords;
  phoneUserId = (await t.users.createPhoneUser({ phone: '+15550007777', name: 'Ada', now: '2026-01-01T00:00:00.000Z' })).user.id;
  await t.sync.push(7, {
    calendars: [{ uid: 'cal', op: 'upsert', baseVersion: null, fields: { name: 'Home', timezone: 'Europe/Berlin' } }],
    events: [
      { uid: 'weekly', op: 'upsert', baseVersion: null, fields: { calendarUid: 'cal', title: 'Weekly', startTime: '2026-01-05T08:00:00.000Z', endTime: '2026-01-05T09:00:00.000Z', rrule: 'FREQ=WEEKLY', exdate: '2026-01-12T08:00:00.000Z' } },
      { uid: 'weekly-0119', op: 'upsert', baseVersion: null, fields: { calendarUid: 'cal', title: 'Weekly (moved)', startTime: '2026-01-19T10:00:00.000Z', endTime: '2026-01-19T11:00:00.000Z', recurringEventUid: 'weekly', originalStartTime: '2026-01-19T08:00:00.000Z' } },
      { uid: 'holiday', op: 'upsert', baseVersion: null, fields: { calendarUid: 'cal', title: 'Holiday', allDay: true, startTime: '2026-03-10', endTime: '2026-03-11' } },
    ],
    reminders: [{ uid: 'r1', op: 'upsert', baseVersion: null, fields: { eventUid: 'weekly', minutesBefore: 15 } }],
  });
});
afterAll(async () => {
  await app?.close();
});

describe('subscription feeds', () => {
  it('feed polls count apart from sign-in: an address that polls a feed can still sign in', async () => {
    const t = await build({ interop: true, env: { AUTH_RATE_LIMIT_MAX_REQUESTS: '2', RATE_LIMIT_MAX_REQUESTS: '3' } });
    try {
      await t.sync.push(7, { calendars: [{ uid: 'cal', op: 'upsert', baseVersion: null, fields: { name: 'Home' } }] });
      const { token } = await t.interop.feeds.create(7, 'cal');
      const polls: number[] = [];
      for (let i = 0; i < 4; i++) polls.push((await t.app.inject({ method: 'GET', url: `/feeds/${token}.ics` })).statusCode);
      // The feeds' own limit (RATE_LIMIT_MAX_REQUESTS per IP) still holds.
      expect(polls).toEqual([200, 200, 200, 429]);
      const signIns: number[] = [];
      for (let i = 0; i < 3; i++) signIns.push((await t.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken: 'x' } })).statusCode);
      expect(signIns).toEqual([401, 401, 429]);
    } finally {
      await t.app.close();
    }
  });

  it('makes a feed whose URL answers the calendar as iCalendar with VTIMEZONE, RRULE, EXDATE, RECURRENCE-ID and VALARM, ETag and 304; revoking it makes the URL 404', async () => {
    const made = await app.inject({ method: 'POST', url: '/api/feeds', headers: user, payload: { calendarUid: 'cal' } });
    expect(made.statusCode).toBe(200);
    const { url, id } = made.json().data;
    expect(url).toMatch(/^http:\/\/localhost(:\d+)?\/feeds\/[A-Za-z0-9_-]{32}\.ics$/);
    const path = new URL(url).pathname;
    const feed = await app.inject({ method: 'GET', url: path });
    expect(feed.statusCode).toBe(200);
    expect(feed.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const calendar = new ICAL.Component(ICAL.parse(feed.body));
    expect(calendar.getFirstSubcomponent('vtimezone')?.getFirstPropertyValue('tzid')).toBe('Europe/Berlin');
    const vevents = calendar.getAllSubcomponents('vevent');
    expect(vevents.map((v) => v.getFirstPropertyValue('summary')).sort()).toEqual(['Holiday', 'Weekly', 'Weekly (moved)']);
    const weekly = vevents.find((v) => v.getFirstPropertyValue('summary') === 'Weekly')!;
    expect(weekly.getFirstProperty('dtstart')?.toICALString()).toBe('DTSTART;TZID=Europe/Berlin:20260105T090000');
    expect(weekly.getFirstProperty('exdate')?.toICALString()).toBe('EXDATE;TZID=Europe/Berlin:20260112T090000');
    expect(weekly.getFirstSubcomponent('valarm')?.getFirstProperty('trigger')?.toICALString()).toBe('TRIGGER:-PT15M');
    const moved = vevents.find((v) => v.getFirstPropertyValue('summary') === 'Weekly (moved)')!;
    expect(moved.getFirstProperty('recurrence-id')?.toICALString()).toBe('RECURRENCE-ID;TZID=Europe/Berlin:20260119T090000');
    expect(vevents.find((v) => v.getFirstPropertyValue('summary') === 'Holiday')!.getFirstProperty('dtstart')?.toICALString()).toBe('DTSTART;VALUE=DATE:20260310');
    const again = await app.inject({ method: 'GET', url: path, headers: { 'if-none-match': String(feed.headers.etag) } });
    expect(again.statusCode).toBe(304);
    expect((await app.inject({ method: 'GET', url: '/api/feeds', headers: user })).json().data.feeds).toEqual([{ id, calendarUid: 'cal', createdAt: '2026-01-01T00:00:00.000Z' }]);
    expect((await app.inject({ method: 'DELETE', url: `/api/feeds/${id}`, headers: user })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: path })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/feeds/not-a-token.ics' })).statusCode).toBe(404);
  });

  it('a deleted calendar\'s feeds answer 404 and are not listed; they come back with the calendar', async () => {
    const write = async (item: Omit<PushItem, 'uid'>) => (await sync.push(7, { calendars: [{ uid: 'trip', ...item }] })).calendars[0]!;
    const made = await write({ op: 'upsert', baseVersion: null, fields: { name: 'Trip' } });
    const feed = (await app.inject({ method: 'POST', url: '/api/feeds', headers: user, payload: { calendarUid: 'trip' } })).json().data;
    const path = new URL(feed.url).pathname;
    const listed = async () => (await app.inject({ method: 'GET', url: '/api/feeds', headers: user })).json().data.feeds.map((f: { calendarUid: string }) => f.calendarUid);
    expect(await listed()).toContain('trip');
    expect(await write({ op: 'delete', baseVersion: made.status === 'created' ? made.version : null, fields: {} })).toMatchObject({ status: 'deleted' });
    expect((await app.inject({ method: 'GET', url: path })).statusCode).toBe(404);
    expect(await listed()).not.toContain('trip');
    // Another device's edit, made before it heard of the delete, meets the tombstone as a
    // conflict; restoring it brings the calendar back, and its feed with it.
    const edit = await write({ op: 'upsert', baseVersion: made.status === 'created' ? made.version : null, fields: { name: 'Trip 2' } });
    expect(edit).toMatchObject({ status: 'conflict' });
    expect((await app.inject({ method: 'GET', url: path })).statusCode).toBe(404);
    await sync.resolveConflict(7, (edit as { conflictId: number }).conflictId, 'restore');
    expect((await app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
    expect(await listed()).toContain('trip');
  });

  it('refuses a feed of a calendar that is not the user\'s (404) and needs a bearer token', async () => {
    expect((await app.inject({ method: 'POST', url: '/api/feeds', headers: user, payload: { calendarUid: 'nope' } })).statusCode).toBe(404);
    expect((await app.inject({ method: 'POST', url: '/api/feeds', payload: { calendarUid: 'cal' } })).statusCode).toBe(401);
  });
});

describe('app passwords', () => {
  it('makes a caldav device whose password signs in with the phone number, until the device is revoked', async () => {
    const made = await app.inject({ method: 'POST', url: '/api/auth/app-passwords', headers: { authorization: `Bearer user-${phoneUserId}` }, payload: { name: 'Thunderbird' } });
    expect(made.statusCode).toBe(200);
    const { password, device } = made.json().data;
    expect(device).toMatchObject({ platform: 'caldav', name: 'Thunderbird' });
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(await appPasswords.authenticate('+15550007777', password)).toEqual({ userId: phoneUserId, deviceUid: device.uid });
    expect(await appPasswords.authenticate('+15550007778', password)).toBeNull();
    expect(await appPasswords.authenticate('+15550007777', `${password}x`)).toBeNull();
    await devices.revokeDevice(phoneUserId, device.uid, '2026-01-02T00:00:00.000Z');
    expect(await appPasswords.authenticate('+15550007777', password)).toBeNull();
  });
});

describe("an app password's device", () => {
  it('is seen when a calendar app signs in with it: lastSeenAt in GET /api/auth/devices moves, at most once a minute', async () => {
    const clock = new ManualAuthClock('2026-01-01T00:00:00.000Z');
    const t = await build({ interop: true, clock });
    try {
      const web = await t.signIn('+15550008888', { uid: 'web-1', platform: 'web' });
      const made = await t.app.inject({ method: 'POST', url: '/api/auth/app-passwords', headers: web, payload: { name: 'vdirsyncer' } });
      const { password, device } = made.json().data;
      const lastSeen = async (): Promise<string> => {
        const listed = await t.app.inject({ method: 'GET', url: '/api/auth/devices', headers: web });
        return listed.json().data.devices.find((d: { uid: string }) => d.uid === device.uid).lastSeenAt;
      };
      const basic = `Basic ${Buffer.from(`+15550008888:${password}`).toString('base64')}`;
      const propfind = async () => {
        const res = await t.app.inject({ method: 'PROPFIND', url: '/dav/', headers: { authorization: basic, depth: '0' }, payload: '<d:propfind xmlns:d="DAV:"><d:prop><d:current-user-principal/></d:prop></d:propfind>' });
        expect(res.statusCode).toBe(207);
      };
      expect(await lastSeen()).toBe('2026-01-01T00:00:00.000Z');
      clock.advanceSeconds(5);
      await propfind();
      expect(await lastSeen()).toBe('2026-01-01T00:00:05.000Z');
      // Within the minute another request writes nothing; the first one after it moves the time again.
      clock.advanceSeconds(30);
      await propfind();
      expect(await lastSeen()).toBe('2026-01-01T00:00:05.000Z');
      clock.advanceSeconds(31);
      await propfind();
      expect(await lastSeen()).toBe('2026-01-01T00:01:06.000Z');
      // A wrong password is no sighting.
      clock.advanceSeconds(120);
      const wrong = await t.app.inject({ method: 'PROPFIND', url: '/dav/', headers: { authorization: `Basic ${Buffer.from(`+15550008888:${password}x`).toString('base64')}`, depth: '0' } });
      expect(wrong.statusCode).toBe(401);
      expect(await lastSeen()).toBe('2026-01-01T00:01:06.000Z');
    } finally {
      await t.app.close();
    }
  });
});
