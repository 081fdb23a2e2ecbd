import type { KeptRender, RenderStore, SyncService } from '@calsync/domain';
import { FixedClock, type InMemorySyncStore } from '@calsync/testkit';
import { icalShape as shape, seriesFixture } from '@calsync/ical/test-support';
import type { FastifyInstance } from 'fastify';
import { beforeEach, describe, expect, it } from 'vitest';
import { build, type TestApp } from '../../test-support/index.js';
import { icalUidHint, RenderCache, WrittenRenders, type DavObjects } from './dav-objects.js';
import { child, NS, parseXml, qname } from './dav-xml.js';

const PHONE = '+15550001111';
const OTHER = '+15550002222';

interface World {
  app: FastifyInstance;
  test: TestApp<InMemorySyncStore>;
  sync: SyncService;
  renders: RenderStore;
  userId: number;
  otherId: number;
  basic: string;
  otherBasic: string;
  deviceUid: string;
  revoke(): Promise<void>;
}

async function world(): Promise<World> {
  const clock = new FixedClock('2026-01-01T00:00:00.000Z');
  const test = await build({ standIns: ['sign-in'], interop: true, clock, engineClock: clock, seed: 5 });
  const { app, sync, users, devices, interop } = test;
  const userId = (await users.createPhoneUser({ phone: PHONE, name: 'Ada', now: '2026-01-01T00:00:00.000Z' })).user.id;
  const otherId = (await users.createPhoneUser({ phone: OTHER, name: 'Bob', now: '2026-01-01T00:00:00.000Z' })).user.id;
  await sync.push(userId, { calendars: [{ uid: 'home', op: 'upsert', baseVersion: null, fields: { name: 'Home', timezone: 'Europe/Berlin', color: '#3366ff' } }] });
  await sync.push(otherId, { calendars: [{ uid: 'work', op: 'upsert', baseVersion: null, fields: { name: 'Work' } }] });
  const mine = await interop.appPasswords.create({ userId, deviceUid: 'web' }, 'Thunderbird');
  const theirs = await interop.appPasswords.create({ userId: otherId, deviceUid: 'web' }, 'Apple Calendar');
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  return {
    app,
    test,
    sync,
    renders: interop.renders,
    userId,
    otherId,
    basic: basic(PHONE, mine.password),
    otherBasic: basic(OTHER, theirs.password),
    deviceUid: mine.device.uid,
    revoke: async () => {
      await devices.revokeDevice(userId, mine.device.uid, '2026-01-02T00:00:00.000Z');
    },
  };
}

const SERIES = seriesFixture('standup-1@example.org');

const propfind = (props: string) => `<?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/" xmlns:a="http://apple.com/ns/ical/"><d:prop>${props}</d:prop></d:propfind>`;

describe('CalDAV', () => {
  let w: World;
  beforeEach(async () => {
    w = await world();
  });

  const dav = (method: string, url: string, body?: string, headers: Record<string, string> = {}) =>
    w.app.inject({ method: method as 'GET', url, headers: { authorization: w.basic, ...(body === undefined ? {} : { 'content-type': body.startsWith('BEGIN:') ? 'text/calendar; charset=utf-8' : 'application/xml; charset=utf-8' }), ...headers }, ...(body === undefined ? {} : { payload: body }) });

  it('is discovered from /.well-known/caldav: principal, calendar home, and one collection per calendar plus tasks', async () => {
    const wellKnown = await w.app.inject({ method: 'PROPFIND', url: '/.well-known/caldav' });
    expect(wellKnown.statusCode).toBe(301);
    expect(wellKnown.headers.location).toBe('/dav/');
    // The bare server address, as an app that looks for no /.well-known asks it.
    const serverRoot = await w.app.inject({ method: 'PROPFIND', url: '/' });
    expect([serverRoot.statusCode, serverRoot.headers.location]).toEqual([301, '/dav/']);
    expect((await w.app.inject({ method: 'PROPFIND', url: '/dav/' })).statusCode).toBe(401);
    const root = await dav('PROPFIND', '/dav/', propfind('<d:current-user-principal/>'), { depth: '0' });
    expect(root.statusCode).toBe(207);
    expect(root.body).toContain(`<d:href>/dav/principals/${w.userId}/</d:href>`);
    const principal = await dav('PROPFIND', `/dav/principals/${w.userId}/`, propfind('<c:calendar-home-set/>'), { depth: '0' });
    expect(principal.body).toContain(`<c:calendar-home-set><d:href>/dav/calendars/${w.userId}/</d:href></c:calendar-home-set>`);
    const home = await dav('PROPFIND', `/dav/calendars/${w.userId}/`, propfind('<d:displayname/><d:resourcetype/><a:calendar-color/><c:supported-calendar-component-set/><cs:getctag/><d:sync-token/>'), { depth: '1' });
    expect(home.statusCode).toBe(207);
    expect(home.body).toContain(`<d:href>/dav/calendars/${w.userId}/home/</d:href>`);
    expect(home.body).toContain('<d:displayname>Home</d:displayname>');
    expect(home.body).toContain('<a:calendar-color>#3366ff</a:calendar-color>');
    expect(home.body).toContain(`<d:href>/dav/calendars/${w.userId}/tasks/</d:href>`);
    expect(home.body).toContain('<c:comp name="VTODO"');
    expect(home.body).toMatch(/<d:sync-token>urn:calsync:sync:\d+<\/d:sync-token>/);
  });

  it('serves a calendar whose uid is tasks beside the tasks collection, under a name no uid has', async () => {
    await w.sync.push(w.userId, { calendars: [{ uid: 'tasks', op: 'upsert', baseVersion: null, fields: { name: 'Chores' } }] });
    const home = `/dav/calendars/${w.userId}/`;
    const listed = await dav('PROPFIND', home, propfind('<d:displayname/><c:supported-calendar-component-set/>'), { depth: '1' });
    const comps = (href: string) => new RegExp(`<d:href>${href}</d:href>.*?<c:supported-calendar-component-set>(.*?)</c:supported-calendar-component-set>`).exec(listed.body)?.[1];
    expect(comps(`${home}tasks.calendar/`)).toContain('VEVENT');
    expect(comps(`${home}tasks/`)).toContain('VTODO');
    expect(listed.body).toContain('<d:displayname>Chores</d:displayname>');
    const event = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:x', 'BEGIN:VEVENT', 'UID:sweep', 'DTSTAMP:20260101T000000Z', 'SUMMARY:Sweep', 'DTSTART:20260601T110000Z', 'DTEND:20260601T120000Z', 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');
    const todo = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:x', 'BEGIN:VTODO', 'UID:t1', 'SUMMARY:Milk', 'END:VTODO', 'END:VCALENDAR', ''].join('\r\n');
    expect((await dav('PUT', `${home}tasks.calendar/sweep.ics`, event)).statusCode).toBe(201);
    expect((await dav('PUT', `${home}tasks/t1.ics`, todo)).statusCode).toBe(201);
    const pulled = await w.sync.pull(w.userId, { limit: 100 });
    expect(pulled.events.map((e) => [e.uid, e.calendarUid])).toEqual([['sweep', 'tasks']]);
    expect(pulled.tasks.map((t) => t.title)).toEqual(['Milk']);
    // Each collection lists its own objects, under hrefs that name it.
    const events = await dav('PROPFIND', `${home}tasks.calendar/`, propfind('<d:getetag/>'), { depth: '1' });
    expect(events.body).toContain(`<d:href>${home}tasks.calendar/sweep.ics</d:href>`);
    expect(events.body).not.toContain('t1.ics');
    const tasks = await dav('PROPFIND', `${home}tasks/`, propfind('<d:getetag/>'), { depth: '1' });
    expect(tasks.body).toContain(`<d:href>${home}tasks/t1.ics</d:href>`);
    expect(tasks.body).not.toContain('sweep');
    // MKCALENDAR cannot make a calendar over the tasks collection; DELETE of the escaped name removes the calendar only.
    expect((await dav('MKCALENDAR', `${home}tasks/`)).statusCode).not.toBe(201);
    expect((await dav('DELETE', `${home}tasks.calendar/`)).statusCode).toBe(204);
    expect((await w.sync.pull(w.userId, { limit: 100 })).tasks.map((t) => t.title)).toEqual(['Milk']);
  });

  it('keeps what a client PUTs: GET gives back the same properties, ATTENDEE, CATEGORIES, X- and the override included; the SDK sees the series', async () => {
    const href = `/dav/calendars/${w.userId}/home/standup-1.ics`;
    const put = await dav('PUT', href, SERIES, { 'if-none-match': '*' });
    expect(put.statusCode).toBe(201);
    const etag = put.headers.etag as string;
    expect(etag).toMatch(/^"\d+"$/);
    const got = await dav('GET', href);
    expect(got.statusCode).toBe(200);
    expect(got.headers.etag).toBe(etag);
    expect(shape(got.body)).toEqual(shape(SERIES));
    const { occurrences } = await w.sync.occurrences(w.userId, { from: '2026-03-23T00:00:00Z', to: '2026-04-02T00:00:00Z' });
    expect(occurrences.map((o) => [o.title, o.start])).toEqual([
      ['Stand-up', '2026-03-23T08:00:00.000Z'],
      ['Stand-up', '2026-03-25T08:00:00.000Z'],
      ['Stand-up (late)', '2026-03-30T09:00:00.000Z'],
      ['Stand-up', '2026-04-01T07:00:00.000Z'],
    ]);
    // A second PUT of the same text changes nothing; If-None-Match: * on an existing object and a stale If-Match are 412.
    expect((await dav('PUT', href, SERIES, { 'if-match': etag })).headers.etag).toBe(etag);
    expect((await dav('PUT', href, SERIES, { 'if-none-match': '*' })).statusCode).toBe(412);
    expect((await dav('PUT', href, SERIES, { 'if-match': '"1"' })).statusCode).toBe(412);
    // If-Match compares strongly: the same tag marked weak matches nothing.
    expect((await dav('PUT', href, SERIES, { 'if-match': `W/${etag}` })).statusCode).toBe(412);
  });

  it('clips a text longer than its field on a code point, never inside an emoji, and then answers no ETag (what is stored is not what was sent)', async () => {
    const href = `/dav/calendars/${w.userId}/home/long-1.ics`;
    // 9,999 letters and an emoji: the 10,000-unit limit of a description falls inside the emoji.
    const description = `${'a'.repeat(9_999)}\u{1F600}tail`;
    const text = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', 'BEGIN:VEVENT', 'UID:long-1@example.org', 'DTSTAMP:20260101T000000Z', 'DTSTART:20260310T090000Z', 'DTEND:20260310T100000Z', 'SUMMARY:Long notes', `DESCRIPTION:${description}`, 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');
    const put = await dav('PUT', href, text, { 'if-none-match': '*' });
    expect(put.statusCode).toBe(201);
    expect(put.headers.etag).toBeUndefined();
    const got = await dav('GET', href);
    expect(got.statusCode).toBe(200);
    const stored = (await w.sync.readObjects(w.userId, { calendarUid: 'home' })).roots.find((r) => r.fields.title === 'Long notes');
    expect(stored?.fields.description).toBe('a'.repeat(9_999));
    // The same text again changes nothing and still differs from what is stored: no ETag either.
    const again = await dav('PUT', href, text, { 'if-match': String(got.headers.etag) });
    expect(again.statusCode).toBe(204);
    expect(again.headers.etag).toBeUndefined();
  });

  it('records an "all events" move a calendar app writes (a new DTSTART, the same rule): its override stays the same record, and an offline device\'s edits follow it', async () => {
    const lines = SERIES.split('\r\n');
    const zone = lines.slice(0, lines.indexOf('END:VTIMEZONE') + 1);
    const at = (day: number, hour: number) => `TZID=Europe/Berlin:202612${String(day).padStart(2, '0')}T${hour}0000`;
    // A weekly Gym on Mondays at `hour` Berlin from 7 December, with 14 December renamed, as an app writes it.
    const gym = (hour: number) => [
      ...zone,
      'BEGIN:VEVENT', 'UID:gym-1', 'DTSTAMP:20261201T000000Z', 'SUMMARY:Gym', `DTSTART;${at(7, hour)}`, `DTEND;${at(7, hour + 1)}`, 'RRULE:FREQ=WEEKLY', 'END:VEVENT',
      'BEGIN:VEVENT', 'UID:gym-1', 'DTSTAMP:20261201T000000Z', `RECURRENCE-ID;${at(14, hour)}`, 'SUMMARY:Gym with Sam', `DTSTART;${at(14, hour)}`, `DTEND;${at(14, hour + 1)}`, 'END:VEVENT',
      'END:VCALENDAR',
    ].join('\r\n');
    const href = `/dav/calendars/${w.userId}/home/gym-1.ics`;
    expect((await dav('PUT', href, gym(18), { 'if-none-match': '*' })).statusCode).toBe(201);
    const seen = (await w.sync.pull(w.userId, { limit: 100 })).events;
    const series = seen.find((e) => e.rrule !== null)!;
    const override = seen.find((e) => e.recurringEventUid === series.uid)!;
    // The app moves every occurrence to 19:00: DTSTART, and the override's RECURRENCE-ID with it.
    const moved = await dav('PUT', href, gym(19));
    expect([moved.statusCode, moved.headers.etag]).toEqual([204, undefined]);
    const after = (await w.sync.pull(w.userId, { limit: 100 })).events;
    expect(after.find((e) => e.uid === series.uid)).toMatchObject({ startTime: '2026-12-07T18:00:00.000Z', moves: '2026-12-07T17:00:00.000Z/2026-12-07T18:00:00.000Z' });
    expect(after.filter((e) => e.recurringEventUid === series.uid).map((e) => [e.uid, e.originalStartTime, e.startTime])).toEqual([[override.uid, '2026-12-14T18:00:00.000Z', '2026-12-14T18:00:00.000Z']]);
    // A device that had not seen the move, offline: it cancels 21 December at 18:00 and renames the override.
    const offline = await w.sync.push(w.userId, {
      events: [
        { uid: series.uid, op: 'upsert', baseVersion: series.version, fields: { exdate: '2026-12-21T17:00:00.000Z' } },
        { uid: override.uid, op: 'upsert', baseVersion: override.version, fields: { title: 'Gym with Sam and Kim' } },
      ],
    });
    expect(offline.events.map((r) => r.status)).toEqual(['conflict', 'conflict']);
    const { occurrences } = await w.sync.occurrences(w.userId, { from: '2026-12-01T00:00:00Z', to: '2027-01-01T00:00:00Z' });
    expect(occurrences.map((o) => [o.start.slice(5, 16), o.title])).toEqual([['12-07T18:00', 'Gym'], ['12-14T18:00', 'Gym with Sam and Kim'], ['12-28T18:00', 'Gym']]);
    // The app reads the object back at its new time, the cancellation and the override included.
    const text = (await dav('GET', href)).body;
    expect([text.includes('EXDATE;TZID=Europe/Berlin:20261221T190000'), text.includes('RECURRENCE-ID;TZID=Europe/Berlin:20261214T190000')]).toEqual([true, true]);
  });

  it('refuses a UID that is stored under another resource name (no-uid-conflict), whether or not the text names it plainly', async () => {
    const base = `/dav/calendars/${w.userId}/home/`;
    const lunch = (uidLine: string, summary: string) =>
      ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:x', 'BEGIN:VEVENT', uidLine, 'DTSTAMP:20260101T000000Z', `SUMMARY:${summary}`, 'DTSTART:20260601T110000Z', 'DTEND:20260601T120000Z', 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');
    // Calendar apps name a resource `<UID>.ics`; that object's record then derives from its UID.
    expect((await dav('PUT', `${base}lunch-1@example.org.ics`, lunch('UID:lunch-1@example.org', 'Lunch'))).statusCode).toBe(201);
    for (const uidLine of ['UID:lunch-1@example.org', 'UID:lunch-1@exam\r\n ple.org', 'UID;X-P=1:lunch-1@example.org']) {
      const again = await dav('PUT', `${base}second-name.ics`, lunch(uidLine, 'Lunch again'));
      expect(again.statusCode).toBe(409);
      expect(again.body).toContain('no-uid-conflict');
    }
    // Deleted under its first name, the UID may live under another.
    expect((await dav('DELETE', `${base}lunch-1@example.org.ics`)).statusCode).toBe(204);
    expect((await dav('PUT', `${base}second-name.ics`, lunch('UID:lunch-1@example.org', 'Lunch again'))).statusCode).toBe(201);
    expect((await dav('GET', `${base}second-name.ics`)).body).toContain('SUMMARY:Lunch again');
  });

  it('refuses an event that lives in another calendar (409 no-uid-conflict) instead of answering 201 and storing nothing; after a DELETE there it may move', async () => {
    expect((await dav('MKCALENDAR', `/dav/calendars/${w.userId}/trips/`)).statusCode).toBe(201);
    const home = `/dav/calendars/${w.userId}/home/`;
    const trips = `/dav/calendars/${w.userId}/trips/`;
    const flight = (summary: string) =>
      ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:x', 'BEGIN:VEVENT', 'UID:flight-7@example.org', 'DTSTAMP:20260101T000000Z', `SUMMARY:${summary}`, 'DTSTART:20260701T060000Z', 'DTEND:20260701T080000Z', 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');
    expect((await dav('PUT', `${home}flight-7@example.org.ics`, flight('Flight'))).statusCode).toBe(201);
    // The same name (a move by PUT, then DELETE), and another name with the same UID.
    for (const name of ['flight-7@example.org.ics', 'copy.ics']) {
      const put = await dav('PUT', `${trips}${name}`, flight('Flight (trip)'));
      expect([name, put.statusCode]).toEqual([name, 409]);
      expect(put.body).toContain('no-uid-conflict');
      expect((await dav('GET', `${trips}${name}`)).statusCode).toBe(404);
    }
    expect((await dav('GET', `${home}flight-7@example.org.ics`)).body).toContain('SUMMARY:Flight\r\n');
    // Deleted from home, it may be put into trips.
    expect((await dav('DELETE', `${home}flight-7@example.org.ics`)).statusCode).toBe(204);
    expect((await dav('PUT', `${trips}flight-7@example.org.ics`, flight('Flight (trip)'))).statusCode).toBe(201);
    expect((await dav('GET', `${trips}flight-7@example.org.ics`)).body).toContain('SUMMARY:Flight (trip)');
    expect((await dav('GET', `${home}flight-7@example.org.ics`)).statusCode).toBe(404);
    const multiget = await dav('REPORT', trips, `<?xml version="1.0"?><c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop><d:href>${trips}flight-7@example.org.ics</d:href></c:calendar-multiget>`);
    expect(multiget.body).toContain('SUMMARY:Flight (trip)');
    const { occurrences } = await w.sync.occurrences(w.userId, { from: '2026-07-01T00:00:00Z', to: '2026-07-02T00:00:00Z' });
    expect(occurrences.map((o) => [o.title, o.calendarUid])).toEqual([['Flight (trip)', 'trips']]);
  });

  it("answers a calendar app's OPTIONS (no Origin, no credentials) on every DAV path with its DAV classes and methods", async () => {
    for (const url of ['/dav/', `/dav/calendars/${w.userId}/`, `/dav/calendars/${w.userId}/home/`, `/dav/calendars/${w.userId}/home/x.ics`]) {
      const res = await w.app.inject({ method: 'OPTIONS', url });
      expect([url, res.statusCode, res.headers.dav, res.headers.allow]).toEqual([url, 200, '1, 3, calendar-access', expect.stringContaining('PROPFIND')]);
    }
    expect((await w.app.inject({ method: 'OPTIONS', url: '/.well-known/caldav' })).statusCode).toBe(301);
    // WebDAV methods calsync does not offer are 405 with what it does, not a 404 that reads as "no such source".
    for (const method of ['MOVE', 'COPY', 'LOCK', 'MKCOL']) {
      const res = await dav(method, `/dav/calendars/${w.userId}/home/x.ics`, undefined, { destination: `/dav/calendars/${w.userId}/work/x.ics` });
      expect([method, res.statusCode, res.headers.allow]).toEqual([method, 405, expect.stringContaining('PUT')]);
    }
    // A calendar-query whose time-range is no UTC date-time is refused, not read as no range.
    const query = await dav('REPORT', `/dav/calendars/${w.userId}/home/`, '<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"><c:time-range start="garbage"/></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>', { depth: '1' });
    expect([query.statusCode, query.body]).toEqual([403, expect.stringContaining('valid-filter')]);
  });

  it('refuses a time that names no day or no zone instead of storing another one, and answers no ETag for an end it had to move', async () => {
    const base = `/dav/calendars/${w.userId}/home/`;
    const object = (uid: string, start: string, end: string) =>
      ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:x', 'BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20260101T000000Z', 'SUMMARY:Odd', start, end, 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');
    for (const [uid, start, end, why] of [
      ['feb-30', 'DTSTART:20260230T100000Z', 'DTEND:20260230T110000Z', '20260230T100000Z'],
      ['month-13', 'DTSTART;VALUE=DATE:20261301', 'DTEND;VALUE=DATE:20261302', '2026-13-01'],
      ['mars', 'DTSTART;TZID=Mars/Olympus:20260301T100000', 'DTEND;TZID=Mars/Olympus:20260301T110000', 'Mars/Olympus'],
    ] as const) {
      const res = await dav('PUT', `${base}${uid}.ics`, object(uid, start, end));
      expect([uid, res.statusCode]).toEqual([uid, 403]);
      expect(res.body).toContain(why.includes('/') ? why : why.replace(/^(\d{4})(\d{2})(\d{2})T/, '$1-$2-$3T').replace(/T(\d{2})(\d{2})(\d{2})Z$/, 'T$1:$2:$3Z'));
      expect((await dav('GET', `${base}${uid}.ics`)).statusCode).toBe(404);
    }
    const backwards = await dav('PUT', `${base}backwards.ics`, object('backwards', 'DTSTART:20260301T100000Z', 'DTEND:20260301T090000Z'));
    expect([backwards.statusCode, backwards.headers.etag]).toEqual([201, undefined]);
    // Written as stored: it ends when it starts (10:00 UTC, in the calendar's Berlin time).
    const got = (await dav('GET', `${base}backwards.ics`)).body.split('BEGIN:VEVENT')[1]!;
    expect([/DTSTART[^\r\n]*/.exec(got)?.[0], /DTEND[^\r\n]*/.exec(got)?.[0]]).toEqual(['DTSTART;TZID=Europe/Berlin:20260301T110000', 'DTEND;TZID=Europe/Berlin:20260301T110000']);
  });

  it('reads the UID of a text without parsing it only as a hint: unfolded and unescaped, null when there is none', () => {
    expect(icalUidHint('BEGIN:VEVENT\r\nUID:a@b\r\nEND:VEVENT')).toBe('a@b');
    expect(icalUidHint('BEGIN:VEVENT\r\nUID:a\r\n @b\\,c\r\nEND:VEVENT')).toBe('a@b,c');
    expect(icalUidHint('BEGIN:VEVENT\nUID;X-A=1:x\nEND:VEVENT')).toBe('x');
    expect(icalUidHint('BEGIN:VEVENT\r\nX-UID:a\r\nEND:VEVENT')).toBeNull();
  });

  it('answers the same CTag and sync token from the calendar home, the collection alone and a sync-collection, and moves them with every change of an object', async () => {
    const home = `/dav/calendars/${w.userId}/`;
    const base = `${home}home/`;
    const ctags = async () => {
      const listed = (await dav('PROPFIND', home, propfind('<cs:getctag/><d:sync-token/>'), { depth: '1' })).body;
      const fromHome = new RegExp(`home/</d:href><d:propstat><d:prop><cs:getctag>(\\d+)</cs:getctag><d:sync-token>([^<]+)</d:sync-token>`).exec(listed)!;
      const tasks = new RegExp(`tasks/</d:href><d:propstat><d:prop><cs:getctag>(\\d+)</cs:getctag>`).exec(listed)![1];
      const alone = (await dav('PROPFIND', base, propfind('<cs:getctag/><d:sync-token/>'), { depth: '0' })).body;
      const fromAlone = /<cs:getctag>(\d+)<\/cs:getctag><d:sync-token>([^<]+)<\/d:sync-token>/.exec(alone)!;
      const report = (await dav('REPORT', base, '<d:sync-collection xmlns:d="DAV:"><d:sync-token/><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>')).body;
      const token = /<d:sync-token>([^<]+)<\/d:sync-token><\/d:multistatus>/.exec(report)![1];
      expect([fromAlone[1], fromAlone[2], token]).toEqual([fromHome[1], fromHome[2], fromHome[2]]);
      expect(fromHome[2]).toBe(`urn:calsync:sync:${fromHome[1]}`);
      return { home: BigInt(fromHome[1]!), tasks: BigInt(tasks!) };
    };
    const empty = await ctags();
    expect(empty).toEqual({ home: 0n, tasks: 0n });
    await dav('PUT', `${base}standup-1.ics`, SERIES);
    const afterPut = await ctags();
    expect(afterPut.home).toBeGreaterThan(0n);
    const override = (await w.sync.pull(w.userId, { limit: 100 })).events.find((e) => e.recurringEventUid !== null)!;
    await w.sync.push(w.userId, { events: [{ uid: override.uid, op: 'upsert', baseVersion: override.version, fields: { title: 'Later' } }] });
    const afterOverride = await ctags();
    expect(afterOverride.home).toBeGreaterThan(afterPut.home);
    const todo = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:x', 'BEGIN:VTODO', 'UID:t1', 'SUMMARY:Milk', 'END:VTODO', 'END:VCALENDAR', ''].join('\r\n');
    expect((await dav('PUT', `${home}tasks/t1.ics`, todo)).statusCode).toBe(201);
    const afterTask = await ctags();
    expect(afterTask).toEqual({ home: afterOverride.home, tasks: afterTask.tasks });
    expect(afterTask.tasks).toBeGreaterThan(afterOverride.home);
    expect((await dav('PROPFIND', `${home}nowhere/`, propfind('<cs:getctag/>'), { depth: '0' })).statusCode).toBe(404);
  });

  it('lists a collection (PROPFIND Depth 1, sync-collection without data) from the light listing read, answering byte for byte what the whole read answers', async () => {
    const home = `/dav/calendars/${w.userId}/`;
    const base = `${home}home/`;
    const event = (uid: string, summary: string) =>
      ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:x', 'BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20260101T000000Z', `SUMMARY:${summary}`, 'DTSTART:20260601T110000Z', 'DTEND:20260601T120000Z', 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');
    // A series whose override the sync API edits later (its ETag is the override's version), an
    // event under a name that is not its UID (the name kept in its extras), one deleted, a task with an alarm.
    expect((await dav('PUT', `${base}standup-1.ics`, SERIES)).statusCode).toBe(201);
    expect((await dav('PUT', `${base}0F3A-named by the app.ics`, event('named@example.org', 'Named'))).statusCode).toBe(201);
    expect((await dav('PUT', `${base}gone@example.org.ics`, event('gone@example.org', 'Gone'))).statusCode).toBe(201);
    expect((await dav('DELETE', `${base}gone@example.org.ics`)).statusCode).toBe(204);
    const override = (await w.sync.pull(w.userId, { limit: 100 })).events.find((e) => e.recurringEventUid !== null)!;
    await w.sync.push(w.userId, { events: [{ uid: override.uid, op: 'upsert', baseVersion: override.version, fields: { title: 'Later' } }] });
    const todo = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:x', 'BEGIN:VTODO', 'UID:t1', 'SUMMARY:Milk', 'BEGIN:VALARM', 'ACTION:DISPLAY', 'TRIGGER:-PT5M', 'END:VALARM', 'END:VTODO', 'END:VCALENDAR', ''].join('\r\n');
    expect((await dav('PUT', `${home}tasks/milk.ics`, todo)).statusCode).toBe(201);
    const sync = (props: string) => `<d:sync-collection xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:sync-token/><d:sync-level>1</d:sync-level><d:prop>${props}</d:prop></d:sync-collection>`;
    const answers = async () =>
      Promise.all(
        [base, `${home}tasks/`].flatMap((collection) => [
          dav('PROPFIND', collection, propfind('<d:getetag/><d:resourcetype/><cs:getctag/><c:calendar-data/>'), { depth: '1' }),
          dav('PROPFIND', collection, '', { depth: '1' }),
          dav('REPORT', collection, sync('<d:getetag/><d:getcontenttype/>'), { depth: '1' }),
        ]).concat([dav('REPORT', `${home}nowhere/`, sync('<d:getetag/>'), { depth: '1' }), dav('PROPFIND', `${home}nowhere/`, '', { depth: '1' })]),
      ).then((rs) => rs.map((r) => `${r.statusCode}\n${r.body}`));
    const listing = w.sync.readObjectListing.bind(w.sync);
    let listed = 0;
    Object.defineProperty(w.sync, 'readObjectListing', { configurable: true, value: (...args: Parameters<typeof listing>) => (listed++, listing(...args)) });
    const light = await answers();
    expect(listed).toBe(8);
    // The same requests through the whole read (a sync engine without the listing read).
    Object.defineProperty(w.sync, 'readObjectListing', { configurable: true, value: undefined });
    const whole = await answers();
    expect(light).toEqual(whole);
    expect(light[0]).toContain(`<d:href>${base}0F3A-named%20by%20the%20app.ics</d:href>`);
    // The series' ETag is its override's version (edited last of its rows).
    expect(light[0]).toContain(`standup-1.ics</d:href><d:propstat><d:prop><d:getetag>"${(await w.sync.pull(w.userId, { limit: 100 })).events.find((e) => e.uid === override.uid)!.version}"</d:getetag>`);
    expect(light[0]).not.toContain('gone@example.org');
    expect(light[5]).toContain('milk.ics');
    expect(light.slice(-2).map((a) => a.slice(0, 3))).toEqual(['404', '404']);
  });

  it('re-renders only the field the sync API changed; the rest of the object stays', async () => {
    const href = `/dav/calendars/${w.userId}/home/standup-1.ics`;
    await dav('PUT', href, SERIES);
    const pulled = await w.sync.pull(w.userId, { limit: 100 });
    const root = pulled.events.find((e) => e.recurringEventUid === null)!;
    await w.sync.push(w.userId, { events: [{ uid: root.uid, op: 'upsert', baseVersion: root.version, fields: { title: 'Daily sync' } }] });
    const after = shape((await dav('GET', href)).body);
    const before = shape(SERIES);
    expect(after[0]!.summary).toEqual(['SUMMARY:Daily sync']);
    expect({ ...after[0], summary: null }).toEqual({ ...before[0], summary: null });
    expect(after[1]).toEqual(before[1]);
  });

  it("writes a stored rule's UNTIL in RFC 5545's form for its DTSTART: a date on a timed series is that whole day, in UTC", async () => {
    const series = (uid: string, fields: Record<string, unknown>) => ({ uid, op: 'upsert' as const, baseVersion: null, fields: { calendarUid: 'home', title: uid, ...fields } });
    await w.sync.push(w.userId, {
      events: [
        series('timed', { startTime: '2026-12-01T14:00:00.000Z', endTime: '2026-12-01T14:30:00.000Z', timezone: 'America/New_York', rrule: 'FREQ=DAILY;UNTIL=20261210' }),
        series('all-day', { startTime: '2026-12-01', endTime: '2026-12-02', allDay: true, rrule: 'FREQ=DAILY;UNTIL=20261210T120000Z;INTERVAL=2' }),
        series('utc', { startTime: '2026-12-01T14:00:00.000Z', endTime: '2026-12-01T14:30:00.000Z', timezone: 'America/New_York', rrule: 'FREQ=WEEKLY;UNTIL=20261229T140000Z' }),
      ],
    });
    // The VEVENT's RRULE (a VTIMEZONE before it has rules of its own).
    const rule = async (uid: string) => /^RRULE:(.*)$/m.exec((await dav('GET', `/dav/calendars/${w.userId}/home/${uid}.ics`)).body.split('BEGIN:VEVENT')[1] ?? '')?.[1]?.trim();
    // 23:59:59 on 10 December in New York is 04:59:59Z on the 11th: the 10th's occurrence stays in.
    expect(await rule('timed')).toBe('FREQ=DAILY;UNTIL=20261211T045959Z');
    expect(await rule('all-day')).toBe('FREQ=DAILY;INTERVAL=2;UNTIL=20261210');
    expect(await rule('utc')).toBe('FREQ=WEEKLY;UNTIL=20261229T140000Z');
  });

  it('answers a read of an unchanged object from its kept render, and an edit through the sync API (root, override, reminder, calendar zone) from a new one', async () => {
    const href = `/dav/calendars/${w.userId}/home/standup-1.ics`;
    await dav('PUT', href, SERIES);
    const get = async () => {
      const res = await dav('GET', href);
      expect(res.statusCode).toBe(200);
      return res.body;
    };
    const first = await get();
    expect(await get()).toBe(first);
    const multiget = await dav('REPORT', `/dav/calendars/${w.userId}/home/`, `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data/></d:prop><d:href>${href}</d:href></c:calendar-multiget>`);
    expect(multiget.body).toContain('SUMMARY:Stand-up');

    const rows = () => w.sync.pull(w.userId, { limit: 100 });
    let pulled = await rows();
    const root = pulled.events.find((e) => e.recurringEventUid === null)!;
    await w.sync.push(w.userId, { events: [{ uid: root.uid, op: 'upsert', baseVersion: root.version, fields: { title: 'Daily sync' } }] });
    const afterRoot = await get();
    expect(afterRoot).toContain('SUMMARY:Daily sync');

    pulled = await rows();
    const override = pulled.events.find((e) => e.recurringEventUid !== null)!;
    await w.sync.push(w.userId, { events: [{ uid: override.uid, op: 'delete', baseVersion: override.version, fields: {} }] });
    const afterOverride = await get();
    expect(afterOverride).not.toContain('RECURRENCE-ID');
    expect(afterRoot).toContain('RECURRENCE-ID');

    pulled = await rows();
    const reminder = pulled.reminders[0]!;
    expect(afterOverride).toContain('BEGIN:VALARM');
    await w.sync.push(w.userId, { reminders: [{ uid: reminder.uid, op: 'delete', baseVersion: reminder.version, fields: {} }] });
    expect(await get()).not.toContain('BEGIN:VALARM');

    // The calendar's zone is read by a render (for times without a zone of their own): a floating event moves with it.
    const floating = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:x', 'BEGIN:VEVENT', 'UID:float-1', 'DTSTAMP:20260101T000000Z', 'SUMMARY:Walk', 'DTSTART:20260601T090000', 'DTEND:20260601T100000', 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');
    const floatHref = `/dav/calendars/${w.userId}/home/float-1.ics`;
    expect((await dav('PUT', floatHref, floating)).statusCode).toBe(201);
    const inBerlin = (await dav('GET', floatHref)).body;
    pulled = await rows();
    const home = pulled.calendars.find((c) => c.uid === 'home')!;
    await w.sync.push(w.userId, { calendars: [{ uid: 'home', op: 'upsert', baseVersion: home.version, fields: { timezone: 'America/New_York' } }] });
    const inNewYork = (await dav('GET', floatHref)).body;
    expect(inNewYork).not.toBe(inBerlin);
    expect(inNewYork).toContain('America/New_York');
  });

  it('keeps renders across processes: a fresh node answers an unchanged object from the kept text, an edit through the sync API from a new render, a DELETE drops it', async () => {
    const href = `/dav/calendars/${w.userId}/home/standup-1.ics`;
    expect((await dav('PUT', href, SERIES)).statusCode).toBe(201);
    // The PUT's render is kept after its answer.
    const keptOf = async () => (await w.renders.readRenders(w.userId, ['standup-1']))[0];
    // Renders are written after the answers: wait (at most a second) for the store to hold what `done` says.
    const eventually = async (done: (kept: KeptRender | undefined) => boolean) => {
      for (let i = 0; i < 100 && !done(await keptOf()); i++) await new Promise((r) => setTimeout(r, 10));
      return keptOf();
    };
    const kept = (await eventually((k) => k !== undefined))!;
    expect(kept.text).toContain('SUMMARY:Stand-up');
    // A mark only the kept text carries: a node that answers with it read the store, not a render of its own.
    await w.renders.keepRenders(w.userId, [{ ...kept, text: kept.text.replace('PRODID:-//calsync//calsync 0.1//EN', 'PRODID:-//calsync//kept//EN') }]);
    const fresh = await build({ standIns: ['sign-in'], interop: true, nodeOf: w.test });
    try {
      const get = (url = href) => fresh.app.inject({ method: 'GET', url, headers: { authorization: w.basic } });
      expect((await get()).body).toContain('PRODID:-//calsync//kept//EN');
      const multiget = await fresh.app.inject({
        method: 'REPORT',
        url: `/dav/calendars/${w.userId}/home/`,
        headers: { authorization: w.basic, 'content-type': 'application/xml' },
        payload: `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data/></d:prop><d:href>${href}</d:href></c:calendar-multiget>`,
      });
      expect(multiget.body).toContain('PRODID:-//calsync//kept//EN');

      // An edit through the sync API gives the root a new version: the kept text no longer matches, a new render is answered and kept.
      const root = (await w.sync.pull(w.userId, { limit: 100 })).events.find((e) => e.recurringEventUid === null)!;
      await w.sync.push(w.userId, { events: [{ uid: root.uid, op: 'upsert', baseVersion: root.version, fields: { title: 'Daily sync' } }] });
      const edited = (await get()).body;
      expect(edited).toContain('SUMMARY:Daily sync');
      expect(edited).not.toContain('kept');
      const keptAgain = await eventually((k) => k?.key !== kept.key);
      expect(keptAgain?.text).toBe(edited);

      expect((await fresh.app.inject({ method: 'DELETE', url: href, headers: { authorization: w.basic } })).statusCode).toBe(204);
      expect(await keptOf()).toBeUndefined();
    } finally {
      await fresh.app.close();
    }
  });

  it('answers calendar-query by time range through the expander, multiget by href, and sync-collection with changes and deletions since a token', async () => {
    const base = `/dav/calendars/${w.userId}/home/`;
    await dav('PUT', `${base}standup-1.ics`, SERIES);
    const lunch = SERIES.replace(/BEGIN:VEVENT[\s\S]*END:VEVENT\r\n/, ['BEGIN:VEVENT', 'UID:lunch@example.org', 'DTSTAMP:20260101T000000Z', 'SUMMARY:Lunch', 'DTSTART:20260601T110000Z', 'DTEND:20260601T120000Z', 'END:VEVENT', ''].join('\r\n'));
    await dav('PUT', `${base}lunch.ics`, lunch);
    const query = (from: string, to: string) =>
      dav('REPORT', base, `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"><c:time-range start="${from}" end="${to}"/></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`, { depth: '1' });
    const june = await query('20260601T000000Z', '20260602T000000Z');
    expect(june.body).toContain(`${base}lunch.ics`);
    expect(june.body).toContain(`${base}standup-1.ics`); // 1 June 2026 is a Monday
    const sunday = await query('20260607T000000Z', '20260608T000000Z');
    expect(sunday.statusCode).toBe(207);
    expect(sunday.body).not.toContain('.ics');
    const multiget = await dav('REPORT', base, `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop><d:href>${base}lunch.ics</d:href><d:href>${base}gone.ics</d:href></c:calendar-multiget>`);
    expect(multiget.statusCode).toBe(207);
    expect(multiget.body).toContain('SUMMARY:Lunch');
    expect(multiget.body).toMatch(/gone\.ics<\/d:href><d:status>HTTP\/1.1 404 Not Found/);
    const syncReport = (token: string) => dav('REPORT', base, `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`);
    const first = await syncReport('');
    const token = /<d:sync-token>([^<]+)<\/d:sync-token>/.exec(first.body)![1]!;
    expect(first.body).toContain('lunch.ics');
    expect((await syncReport(token)).body).not.toContain('.ics');
    // A change of an override alone (through the sync API) changes its series' object.
    const override = (await w.sync.pull(w.userId, { limit: 100 })).events.find((e) => e.recurringEventUid !== null)!;
    await w.sync.push(w.userId, { events: [{ uid: override.uid, op: 'upsert', baseVersion: override.version, fields: { title: 'Stand-up (later)' } }] });
    const afterOverride = await syncReport(token);
    expect(afterOverride.body).toContain('standup-1.ics');
    expect(afterOverride.body).not.toContain('lunch.ics');
    const standupEtag = /standup-1\.ics<\/d:href>.*?<d:getetag>([^<]+)<\/d:getetag>/.exec(afterOverride.body)![1]!;
    expect((await dav('GET', `${base}standup-1.ics`)).headers.etag).toBe(standupEtag.replace(/&quot;/g, '"'));
    const overrideToken = /<d:sync-token>([^<]+)<\/d:sync-token>/.exec(afterOverride.body)![1]!;
    expect(overrideToken).not.toBe(token);
    expect((await syncReport(overrideToken)).body).not.toContain('.ics');
    expect((await dav('DELETE', `${base}lunch.ics`)).statusCode).toBe(204);
    const next = await syncReport(overrideToken);
    expect(next.body).toMatch(/lunch\.ics<\/d:href><d:status>HTTP\/1.1 404 Not Found/);
    expect(next.body).not.toContain('standup-1.ics');
    expect((await syncReport('urn:calsync:sync:999999')).statusCode).toBe(403);
    expect((await dav('GET', `${base}lunch.ics`)).statusCode).toBe(404);
  });

  it('keeps a sync-collection to its DAV:limit: the oldest changes, a token at the last of them and 507 for the collection, until the rest fit', async () => {
    const base = `/dav/calendars/${w.userId}/home/`;
    const event = (uid: string) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:x', 'BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20260101T000000Z', `SUMMARY:${uid}`, 'DTSTART:20260601T110000Z', 'DTEND:20260601T120000Z', 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');
    for (const uid of ['e1', 'e2', 'e3', 'e4', 'e5']) expect((await dav('PUT', `${base}${uid}.ics`, event(uid))).statusCode).toBe(201);
    const sync = async (token: string, limit: number | null, props = '<d:getetag/>') => {
      const limited = limit === null ? '' : `<d:limit><d:nresults>${limit}</d:nresults></d:limit>`;
      const r = await dav('REPORT', base, `<d:sync-collection xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level>${limited}<d:prop>${props}</d:prop></d:sync-collection>`);
      expect(r.statusCode).toBe(207);
      return {
        names: [...r.body.matchAll(/home\/(e\d)\.ics<\/d:href>/g)].map((m) => m[1]),
        gone: [...r.body.matchAll(/home\/(e\d)\.ics<\/d:href><d:status>HTTP\/1.1 404/g)].map((m) => m[1]),
        truncated: r.body.includes(`<d:href>${base}</d:href><d:status>HTTP/1.1 507 Insufficient Storage</d:status><d:error><d:number-of-matches-within-limits/></d:error>`),
        token: /<d:sync-token>([^<]+)<\/d:sync-token>/.exec(r.body)![1]!,
        body: r.body,
      };
    };
    // From no token, by pages of two (the light listing), then with calendar data (the whole read).
    const first = await sync('', 2);
    expect([first.names, first.truncated]).toEqual([['e1', 'e2'], true]);
    const second = await sync(first.token, 2);
    expect([second.names, second.truncated]).toEqual([['e3', 'e4'], true]);
    const third = await sync(second.token, 2);
    expect([third.names, third.truncated]).toEqual([['e5'], false]);
    expect(third.token).toBe((await sync('', null)).token);
    const withData = await sync('', 2, '<d:getetag/><c:calendar-data/>');
    expect([withData.names, withData.truncated, withData.token]).toEqual([['e1', 'e2'], true, first.token]);
    expect(withData.body).toContain('SUMMARY:e2');
    expect(withData.body).not.toContain('SUMMARY:e3');
    // Changes since a token: a deletion counts as one; a limit of zero or no number is no limit.
    expect((await dav('DELETE', `${base}e1.ics`)).statusCode).toBe(204);
    expect((await dav('PUT', `${base}e2.ics`, event('e2').replace('SUMMARY:e2', 'SUMMARY:e2 again'))).statusCode).toBe(204);
    const changed = await sync(third.token, 1);
    expect([changed.names, changed.gone, changed.truncated]).toEqual([['e1'], ['e1'], true]);
    const rest = await sync(changed.token, 1);
    expect([rest.names, rest.gone, rest.truncated]).toEqual([['e2'], [], false]);
    for (const odd of [0, 'x']) expect((await sync(third.token, odd as number)).names).toEqual(['e1', 'e2']);
  });

  it('shows an event moved to another calendar through the sync API gone from the one it left: CTag, sync-collection 404 under its listed name, listings', async () => {
    const home = `/dav/calendars/${w.userId}/`;
    const event = (uid: string) =>
      ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:x', 'BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20260101T000000Z', 'SUMMARY:Moved', 'DTSTART:20260601T110000Z', 'DTEND:20260601T120000Z', 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');
    await w.sync.push(w.userId, { calendars: [{ uid: 'work', op: 'upsert', baseVersion: null, fields: { name: 'Work' } }] });
    expect((await dav('PUT', `${home}home/standup-1.ics`, SERIES)).statusCode).toBe(201);
    expect((await dav('PUT', `${home}home/0F3A-named.ics`, event('named@example.org'))).statusCode).toBe(201);
    const syncReport = (collection: string, token: string) =>
      dav('REPORT', `${home}${collection}/`, `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`);
    const tokenOf = (body: string) => /<d:sync-token>([^<]+)<\/d:sync-token>/.exec(body)![1]!;
    const ctag = async (collection: string) => /<cs:getctag>(\d+)<\/cs:getctag>/.exec((await dav('PROPFIND', `${home}${collection}/`, propfind('<cs:getctag/>'), { depth: '0' })).body)![1];
    const before = { home: tokenOf((await syncReport('home', '')).body), work: tokenOf((await syncReport('work', '')).body), ctag: await ctag('home') };

    // The SDK or the web client moves both events to work.
    const pulled = (await w.sync.pull(w.userId, { limit: 100 })).events.filter((e) => e.recurringEventUid === null);
    await w.sync.push(w.userId, { events: pulled.map((e) => ({ uid: e.uid, op: 'upsert' as const, baseVersion: e.version, fields: { calendarUid: 'work' } })) });
    const moved = await w.sync.pull(w.userId, { limit: 100 });
    const newest = moved.events.map((e) => BigInt(e.version!)).reduce((a, b) => (a > b ? a : b));

    expect(await ctag('home')).toBe(String(newest));
    expect(await ctag('home')).not.toBe(before.ctag);
    const left = await syncReport('home', before.home);
    expect(left.body).toMatch(/standup-1\.ics<\/d:href><d:status>HTTP\/1.1 404 Not Found/);
    expect(left.body).toMatch(/0F3A-named\.ics<\/d:href><d:status>HTTP\/1.1 404 Not Found/);
    expect(tokenOf(left.body)).toBe(`urn:calsync:sync:${newest}`);
    expect((await syncReport('home', tokenOf(left.body))).body).not.toContain('.ics');
    const arrived = await syncReport('work', before.work);
    expect(arrived.body).toMatch(/standup-1\.ics<\/d:href><d:propstat>/);
    expect(arrived.body).toMatch(/0F3A-named\.ics<\/d:href><d:propstat>/);
    // Listings of home name neither; a fresh sync of home lists nothing; GET there is 404 and in work 200.
    expect((await dav('PROPFIND', `${home}home/`, propfind('<d:getetag/>'), { depth: '1' })).body).not.toContain('.ics');
    expect((await syncReport('home', '')).body).not.toContain('.ics');
    expect((await dav('GET', `${home}home/0F3A-named.ics`)).statusCode).toBe(404);
    expect((await dav('GET', `${home}work/0F3A-named.ics`)).statusCode).toBe(200);
    // An app that edits the event at its old address with the ETag it had is told the resource changed, not that the UID conflicts.
    const stale = await dav('PUT', `${home}home/0F3A-named.ics`, event('named@example.org').replace('SUMMARY:Moved', 'SUMMARY:Edited'), { 'if-match': '"1"' });
    expect(stale.statusCode).toBe(412);
    expect((await dav('PUT', `${home}home/0F3A-named.ics`, event('named@example.org'))).statusCode).toBe(409);

    // Once retention removes departures (or tombstones) past a token, that token is refused, so the app syncs afresh (RFC 6578 3.2).
    const changedSince = w.sync.readObjectsChangedSince.bind(w.sync);
    Object.defineProperty(w.sync, 'readObjectsChangedSince', {
      configurable: true,
      value: async (...args: Parameters<typeof changedSince>) => ({ ...(await changedSince(...args)), purgedThrough: newest }),
    });
    const refused = await syncReport('home', before.home);
    expect([refused.statusCode, refused.body]).toEqual([403, expect.stringContaining('<d:valid-sync-token/>')]);
    expect((await syncReport('home', tokenOf(left.body))).statusCode).toBe(207);
  });

  it('makes, renames, recolours and deletes calendars with MKCALENDAR, PROPPATCH and DELETE', async () => {
    const url = `/dav/calendars/${w.userId}/trips/`;
    const made = await dav('MKCALENDAR', url, '<c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:set><d:prop><d:displayname>Trips</d:displayname></d:prop></d:set></c:mkcalendar>');
    expect(made.statusCode).toBe(201);
    expect((await dav('MKCALENDAR', url)).statusCode).toBe(405);
    const patched = await dav('PROPPATCH', url, '<d:propertyupdate xmlns:d="DAV:" xmlns:a="http://apple.com/ns/ical/"><d:set><d:prop><d:displayname>Journeys</d:displayname><a:calendar-color>#FF8800FF</a:calendar-color></d:prop></d:set></d:propertyupdate>');
    expect(patched.statusCode).toBe(207);
    const calendars = (await w.sync.pull(w.userId, { limit: 100 })).calendars;
    expect(calendars.find((c) => c.uid === 'trips')).toMatchObject({ name: 'Journeys', color: '#FF8800' });
    // Entities and character references of a body are read as the characters they stand for, and written escaped.
    const amp = await dav('PROPPATCH', url, '<d:propertyupdate xmlns:d="DAV:"><d:set><d:prop><d:displayname> Trips &amp; &lt;talks&gt; &#8364;5 </d:displayname></d:prop></d:set></d:propertyupdate>');
    expect(amp.statusCode).toBe(207);
    expect((await w.sync.pull(w.userId, { limit: 100 })).calendars.find((c) => c.uid === 'trips')!.name).toBe('Trips & <talks> €5');
    const read = await dav('PROPFIND', url, propfind('<d:displayname/>'), { depth: '0' });
    expect(read.body).toContain('<d:displayname>Trips &amp; &lt;talks&gt; €5</d:displayname>');
    expect(child(child(child(child(parseXml(read.body), qname(NS.dav, 'response')), qname(NS.dav, 'propstat')), qname(NS.dav, 'prop')), qname(NS.dav, 'displayname'))?.text).toBe('Trips & <talks> €5');
    // All or nothing: a colour that is none, an empty name or a property calsync does not keep is 403 with why, the rest 424, and nothing changes.
    const version = (await w.sync.pull(w.userId, { limit: 100 })).calendars.find((c) => c.uid === 'trips')!.version;
    for (const [props, refused] of [
      ['<d:displayname>Holidays</d:displayname><a:calendar-color>purple</a:calendar-color>', 'a:calendar-color'],
      ['<d:displayname>   </d:displayname>', 'd:displayname'],
      ['<x:foo xmlns:x="urn:x">1</x:foo><a:calendar-color>#123456</a:calendar-color>', 'x:foo'],
    ] as const) {
      const res = await dav('PROPPATCH', url, `<d:propertyupdate xmlns:d="DAV:" xmlns:a="http://apple.com/ns/ical/"><d:set><d:prop>${props}</d:prop></d:set></d:propertyupdate>`);
      expect(res.statusCode).toBe(207);
      expect(res.body).toMatch(new RegExp(`<(?:\\w+:)?${refused.split(':')[1]}[^>]*/></d:prop><d:status>HTTP/1.1 403 Forbidden</d:status><d:responsedescription>`));
      if (props.includes('</d:displayname><a:') || props.includes('#123456')) expect(res.body).toContain('HTTP/1.1 424 Failed Dependency');
      expect((await w.sync.pull(w.userId, { limit: 100 })).calendars.find((c) => c.uid === 'trips')!.version).toBe(version);
    }
    // A colour removed leaves the calendar without one.
    const removed = await dav('PROPPATCH', url, '<d:propertyupdate xmlns:d="DAV:" xmlns:a="http://apple.com/ns/ical/"><d:remove><d:prop><a:calendar-color/></d:prop></d:remove></d:propertyupdate>');
    expect(removed.body).toContain('HTTP/1.1 200 OK');
    expect((await w.sync.pull(w.userId, { limit: 100 })).calendars.find((c) => c.uid === 'trips')!.color).toBeNull();
    expect((await dav('DELETE', url)).statusCode).toBe(204);
    expect((await dav('PROPFIND', url, propfind('<d:displayname/>'), { depth: '0' })).statusCode).toBe(404);
  });

  it('keeps users apart, ends a revoked app password at once, and limits failed sign-ins', async () => {
    await dav('PUT', `/dav/calendars/${w.userId}/home/standup-1.ics`, SERIES);
    for (const url of [`/dav/calendars/${w.userId}/home/standup-1.ics`, `/dav/calendars/${w.userId}/home/`, `/dav/principals/${w.userId}/`]) {
      expect((await dav('PROPFIND', url, propfind('<d:getetag/>'), { authorization: w.otherBasic, depth: '0' })).statusCode).toBe(404);
    }
    expect((await dav('GET', `/dav/calendars/${w.userId}/home/standup-1.ics`, undefined, { authorization: w.otherBasic })).statusCode).toBe(404);
    expect((await dav('PUT', `/dav/calendars/${w.userId}/home/x.ics`, SERIES, { authorization: w.otherBasic })).statusCode).toBe(404);
    expect((await dav('GET', `/dav/calendars/${w.otherId}/work/`, undefined, { authorization: w.otherBasic })).statusCode).toBe(405);
    await w.revoke();
    expect((await dav('PROPFIND', '/dav/', propfind('<d:current-user-principal/>'))).statusCode).toBe(401);
    const wrong = `Basic ${Buffer.from(`${OTHER}:guess`).toString('base64')}`;
    const codes: number[] = [];
    for (let i = 0; i < 12; i++) codes.push((await dav('PROPFIND', '/dav/', propfind('<d:current-user-principal/>'), { authorization: wrong })).statusCode);
    expect(codes.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(codes.slice(10)).toEqual([429, 429]);
    // Past the limit even the right password waits: a guesser cannot tell.
    expect((await dav('PROPFIND', '/dav/', propfind('<d:current-user-principal/>'), { authorization: w.otherBasic })).statusCode).toBe(429);
  });

  it('refuses XML with entities (billion laughs), ill-formed XML, a non-calendar body, a VTODO in a calendar and a body over the limit, without a 500', async () => {
    const bomb = '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><d:propfind xmlns:d="DAV:"><d:prop><d:displayname>&lol2;</d:displayname></d:prop></d:propfind>';
    expect((await dav('PROPFIND', '/dav/', bomb)).statusCode).toBe(400);
    expect((await dav('PROPFIND', '/dav/', '<d:propfind xmlns:d="DAV:"><d:prop>')).statusCode).toBe(400);
    for (const illFormed of ['<d:propfind xmlns:d="DAV:"><d:prop></d:propfind>', '<x:propfind/>', '<d:propfind xmlns:d="DAV:"/><d:propfind xmlns:d="DAV:"/>', '<d:propfind xmlns:d="DAV:">&nbsp;</d:propfind>', 'propfind']) {
      const answer = await dav('PROPFIND', '/dav/', illFormed);
      expect([answer.statusCode, JSON.parse(answer.body).error.code]).toEqual([400, 'VALIDATION_ERROR']);
    }
    const base = `/dav/calendars/${w.userId}/home/`;
    expect((await dav('PUT', `${base}x.ics`, 'hello', { 'content-type': 'text/calendar' })).statusCode).toBe(415);
    const todo = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:x', 'BEGIN:VTODO', 'UID:t1', 'SUMMARY:Milk', 'END:VTODO', 'END:VCALENDAR', ''].join('\r\n');
    expect((await dav('PUT', `${base}t1.ics`, todo)).statusCode).toBe(403);
    expect((await dav('PUT', `/dav/calendars/${w.userId}/tasks/t1.ics`, todo)).statusCode).toBe(201);
    const big = `${SERIES.replace('SUMMARY:Stand-up\r\n', `SUMMARY:Stand-up\r\nDESCRIPTION:${'x'.repeat(10 * 1024 * 1024)}\r\n`)}`;
    expect((await dav('PUT', `${base}big.ics`, big)).statusCode).toBe(413);
  });
});

describe('RenderCache', () => {
  it('keeps at most its characters, dropping the least recently used first, and nothing with no room', () => {
    const cache = new RenderCache(1000);
    for (let i = 0; i < 100; i++) cache.set(`k${i}`, `text ${String(i).padStart(5, '0')}`);
    expect(cache.get('k0')).toBe('text 00000');
    cache.set('k100', 'text 00100');
    expect(cache.get('k0')).toBe('text 00000');
    expect(cache.get('k1')).toBeUndefined();
    expect(cache.get('k100')).toBe('text 00100');
    cache.set('big', 'x'.repeat(11));
    expect(cache.get('big')).toBeUndefined();
    const none = new RenderCache(0);
    none.set('k', 'a');
    expect(none.get('k')).toBeUndefined();
  });
});

describe('WrittenRenders', () => {
  it('renders the objects written within its delay a hundred at a time per collection, reports a failed batch and goes on, and drops what is past its bound', async () => {
    const calls: string[] = [];
    const errors: unknown[] = [];
    const objectsOf = (userId: number) =>
      ({
        renderWritten: async (collection: string, uids: readonly string[]) => {
          calls.push(`${userId}/${collection}: ${uids.length} from ${uids[0]}`);
          if (collection === 'broken') throw new Error('store down');
        },
      }) as unknown as DavObjects;
    const written = new WrittenRenders(objectsOf, (error) => errors.push(error), 60_000, 160);
    for (let i = 0; i < 150; i++) written.add(1, 'home', `e${i}`);
    written.add(1, 'home', 'e0');
    written.add(1, 'broken', 'x');
    written.add(2, 'home', 'e0');
    for (let i = 0; i < 20; i++) written.add(3, 'home', `late${i}`);
    // Nothing before its delay.
    expect(calls).toEqual([]);
    await written.settled();
    expect(calls).toEqual(['1/home: 100 from e0', '1/home: 50 from e100', '1/broken: 1 from x', '2/home: 1 from e0', '3/home: 8 from late0']);
    expect(errors).toHaveLength(1);
    // The bound is of what waits: once drained, there is room again.
    written.add(3, 'home', 'late19');
    await written.settled();
    expect(calls.at(-1)).toBe('3/home: 1 from late19');
  });
});
