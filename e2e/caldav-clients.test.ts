import { createSyncClient, MemoryStore, type SyncClient } from '@calsync/client';
import { pythonStarts, pythonWithOracle } from '@calsync/domain/test-support';
import { icalShape, seriesFixture } from '@calsync/ical/test-support';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createDAVClient } from 'tsdav';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, type ScratchDatabase } from './lib/scratch-database.js';
import { REPO_ROOT } from './lib/server-process.js';
import { startTestServer, type TestServer } from './lib/test-server.js';

// Calendar apps no one here wrote, against the real server process over real HTTP: Python's
// caldav library (Debian's python3-caldav) and tsdav (npm) on embedded PGlite, vdirsyncer
// (Debian's vdirsyncer) on PostgreSQL when TEST_DATABASE_URL is set, else on PGlite. Each signs in
// with an app password made through the API; an SDK device of the same account checks that both
// sides see the same data. CI installs the Debian packages (.ci/run); a machine without them
// fails here instead of skipping, unless CALDAV_CLIENTS=skip says so on purpose.

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';

/** A weekly series in Berlin with one occurrence moved, as Thunderbird writes it (TZID, VTIMEZONE, RRULE, EXDATE, RECURRENCE-ID, VALARM, X-). */
const seriesWithUid = seriesFixture;

/** A one-off event as a calendar app writes it. */
function single(uid: string, summary: string, day: string): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync e2e//EN', 'BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20260101T000000Z', `SUMMARY:${summary}`, `DTSTART:${day}T100000Z`, `DTEND:${day}T110000Z`, 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');
}

interface Account {
  readonly server: TestServer;
  readonly base: string;
  readonly phone: string;
  readonly password: string;
  readonly sdk: SyncClient;
  readonly personal: string;
}

async function openAccount(name: string, databaseUrl: string): Promise<Account> {
  const server = await startTestServer(name, { DATABASE_URL: databaseUrl });
  const base = server.server.baseUrl;
  const phone = `+1555${String(1_000_000 + Math.floor(Math.random() * 8_999_999))}`;
  const sdk = createSyncClient({ baseUrl: base, store: new MemoryStore(), device: { platform: 'web', name: 'SDK' }, periodicMs: 3_600_000, debounceMs: 5 });
  await sdk.open();
  await sdk.auth.sendOtp(phone);
  await sdk.auth.verifyOtp(phone, server.gateway.lastCode(phone));
  await sdk.sync();
  const { password, device } = await sdk.appPasswords.create(name);
  expect(device.platform).toBe('caldav');
  const personal = sdk.calendars.list().find((c) => c.name === 'Personal')!.uid;
  return { server, base, phone, password, sdk, personal };
}

async function closeAccount(account: Account | undefined): Promise<void> {
  if (account === undefined) return;
  await account.sdk.close();
  await account.server.stop();
}

describe('Python caldav (python3-caldav) and tsdav against CalDAV on PGlite', () => {
  let account: Account;
  beforeAll(async () => {
    account = await openAccount('caldav-clients', 'pglite://memory');
  });
  afterAll(async () => {
    await closeAccount(account);
  });

  it('python caldav: discovery from /.well-known/caldav, calendars, a series with an override read back equal, date_search, and the sync token', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'calsync-pycaldav-'));
    try {
      const sent = seriesWithUid('py-standup@example.org');
      await writeFile(join(dir, 'series.ics'), sent);
      const script = join(REPO_ROOT, 'e2e/interop/python_caldav_client.py');
      const first = JSON.parse((await run(PYTHON, [script, 'first', account.base, account.phone, account.password, join(dir, 'series.ics')])).stdout) as {
        calendars: Array<{ name: string; url: string }>;
        collection: string;
        href: string;
        data: string;
        search: string[];
        emptySearch: string[];
        syncToken: string;
        syncObjects: string[];
      };
      expect(first.calendars.map((c) => c.name).sort()).toEqual(['Personal', 'Tasks']);
      // python caldav's save_event raises SEQUENCE by one before it PUTs (increase_seqno): the rest comes back as sent.
      const withoutSequence = (text: string) => text.replace(/^SEQUENCE:.*\r?\n/gm, '');
      expect(icalShape(withoutSequence(first.data))).toEqual(icalShape(withoutSequence(sent)));
      expect(first.data).toContain('SEQUENCE:3');
      expect(first.search).toEqual([first.href]);
      expect(first.emptySearch).toEqual([]);
      expect(first.syncObjects).toEqual([first.href]);
      // The SDK sees the series and its moved occurrence; its edit shows in the next sync.
      await account.sdk.sync();
      const late = account.sdk.occurrences({ from: '2026-03-30T00:00:00Z', to: '2026-03-31T00:00:00Z' }).occurrences.find((o) => o.title === 'Stand-up (late)');
      expect(late?.start).toBe('2026-03-30T09:00:00.000Z');
      const root = account.sdk.events.list().find((e) => e.title === 'Stand-up')!;
      await account.sdk.events.put({ uid: root.uid, title: 'Stand-up (new room)' });
      await account.sdk.sync();
      const since = JSON.parse((await run(PYTHON, [script, 'since', first.collection, account.phone, account.password, first.syncToken])).stdout) as { syncToken: string; objects: Array<{ url: string; data: string }> };
      expect(since.objects.map((o) => o.url)).toEqual([first.href]);
      expect(since.objects[0]!.data).toContain('SUMMARY:Stand-up (new room)');
      expect(since.syncToken).not.toBe(first.syncToken);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('python caldav: an app moves every occurrence of a series an hour later while the SDK, offline, cancels one: it stays cancelled, and the override is the same record', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'calsync-pycaldav-'));
    try {
      await writeFile(join(dir, 'series.ics'), seriesWithUid('py-yoga@example.org').replace('SUMMARY:Stand-up\r\n', 'SUMMARY:Yoga\r\n'));
      const script = join(REPO_ROOT, 'e2e/interop/python_caldav_client.py');
      const { href } = JSON.parse((await run(PYTHON, [script, 'first', account.base, account.phone, account.password, join(dir, 'series.ics')])).stdout) as { href: string };
      await account.sdk.sync();
      const root = account.sdk.events.list().find((e) => e.title === 'Yoga')!;
      const override = account.sdk.events.list().find((e) => e.recurringEventUid === root.uid)!;
      // Offline (no sync): the SDK cancels Monday 23 March at 09:00 Berlin.
      await account.sdk.events.removeOccurrence(root.uid, '2026-03-23T08:00:00.000Z');
      const moved = JSON.parse((await run(PYTHON, [script, 'move', href, account.phone, account.password, '1'])).stdout) as { data: string };
      expect(moved.data).toContain('DTSTART;TZID=Europe/Berlin:20260302T100000');
      await account.sdk.sync();
      const window = { from: '2026-03-23T00:00:00Z', to: '2026-04-02T00:00:00Z', tz: 'Europe/Berlin' };
      const shown = account.sdk.occurrences(window).occurrences.filter((o) => o.seriesUid === root.uid).map((o) => [o.title, o.start]);
      // 10:00 Berlin from now on (CET, then CEST after 29 March); the override keeps its own 11:00.
      expect(shown).toEqual([
        ['Yoga', '2026-03-25T09:00:00.000Z'],
        ['Stand-up (late)', '2026-03-30T09:00:00.000Z'],
        ['Yoga', '2026-04-01T08:00:00.000Z'],
      ]);
      expect(account.sdk.events.list().filter((e) => e.recurringEventUid === root.uid).map((e) => [e.uid, e.originalStartTime])).toEqual([[override.uid, '2026-03-30T08:00:00.000Z']]);
      expect(await account.sdk.conflicts.list()).toEqual([]);
      // The calendar as the tests after this one expect it.
      await account.sdk.events.remove(root.uid);
      await account.sdk.sync();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('tsdav: discovery, calendars, create with TZID/RRULE/override read back equal, time-range fetch, and sync-collection after an SDK write and an SDK move', async () => {
    const client = await createDAVClient({ serverUrl: account.base, credentials: { username: account.phone, password: account.password }, authMethod: 'Basic', defaultAccountType: 'caldav' });
    const calendars = await client.fetchCalendars();
    const personal = calendars.find((c) => c.displayName === 'Personal')!;
    expect(personal).toBeDefined();
    expect(calendars.map((c) => c.displayName).sort()).toEqual(['Personal', 'Tasks']);
    const sent = seriesWithUid('ts-standup@example.org');
    const created = await client.createCalendarObject({ calendar: personal, filename: 'ts-standup.ics', iCalString: sent });
    expect(created.status).toBe(201);
    const objects = await client.fetchCalendarObjects({ calendar: personal, objectUrls: [new URL('ts-standup.ics', personal.url).href] });
    expect(objects).toHaveLength(1);
    expect(icalShape(objects[0]!.data as string)).toEqual(icalShape(sent));
    const inRange = await client.fetchCalendarObjects({ calendar: personal, timeRange: { start: '2026-03-30T00:00:00Z', end: '2026-03-31T00:00:00Z' } });
    expect(inRange.map((o) => new URL(o.url).pathname)).toContain(new URL('ts-standup.ics', personal.url).pathname);
    const outOfRange = await client.fetchCalendarObjects({ calendar: personal, timeRange: { start: '2026-03-29T00:00:00Z', end: '2026-03-30T00:00:00Z' } });
    expect(outOfRange.filter((o) => o.url.endsWith('ts-standup.ics'))).toEqual([]);
    // An SDK device writes an event; tsdav's sync-collection from the calendar's token sees it.
    const token = (await client.fetchCalendars()).find((c) => c.url === personal.url)!.syncToken as string;
    expect(token).not.toBe(personal.syncToken);
    await account.sdk.sync();
    await account.sdk.events.put({ calendarUid: account.personal, title: 'From the SDK', startTime: '2026-04-02T10:00:00.000Z', endTime: '2026-04-02T11:00:00.000Z' });
    await account.sdk.sync();
    const changes = await client.syncCollection({ url: personal.url, props: { 'd:getetag': {} }, syncLevel: 1, syncToken: token });
    const hrefs = changes.map((r) => r.href ?? '').filter((h) => h.endsWith('.ics'));
    expect(hrefs).toHaveLength(1);
    const fresh = await client.fetchCalendarObjects({ calendar: personal, objectUrls: [new URL(hrefs[0]!, account.base).href] });
    expect(fresh[0]!.data).toContain('SUMMARY:From the SDK');

    // The SDK moves that event to a new calendar: tsdav sees Personal changed (CTag), and its
    // sync-collection from the last token reports the event's href gone; the new calendar has it.
    const seen = (await client.fetchCalendars()).find((c) => c.url === personal.url)!;
    const work = await account.sdk.calendars.put({ name: 'Work' });
    const fromSdk = account.sdk.events.list().find((e) => e.title === 'From the SDK')!;
    await account.sdk.events.put({ uid: fromSdk.uid, calendarUid: work });
    await account.sdk.sync();
    expect((await client.isCollectionDirty({ collection: seen })).isDirty).toBe(true);
    const left = await client.syncCollection({ url: personal.url, props: { 'd:getetag': {} }, syncLevel: 1, syncToken: seen.syncToken as string });
    expect(left.filter((r) => (r.href ?? '').endsWith('.ics')).map((r) => [new URL(r.href!, account.base).pathname, r.status])).toEqual([[new URL(hrefs[0]!, account.base).pathname, 404]]);
    const workCalendar = (await client.fetchCalendars()).find((c) => c.displayName === 'Work')!;
    const inWork = await client.fetchCalendarObjects({ calendar: workCalendar });
    expect(inWork.map((o) => o.data as string).filter((d) => d.includes('SUMMARY:From the SDK'))).toHaveLength(1);
    expect((await client.fetchCalendarObjects({ calendar: personal })).filter((o) => (o.data as string).includes('SUMMARY:From the SDK'))).toEqual([]);
  });

  it('tsdav: a daily 02:00 series from the night Sydney skips 02:00 stays at 02:00 on the nights after, in the SDK and in the text read back', async () => {
    const python = pythonWithOracle();
    if (python === null) throw new Error('no Python with icalendar and recurring_ical_events (apt-get install python3-icalendar python3-recurring-ical-events)');
    const client = await createDAVClient({ serverUrl: account.base, credentials: { username: account.phone, password: account.password }, authMethod: 'Basic', defaultAccountType: 'caldav' });
    const personal = (await client.fetchCalendars()).find((c) => c.displayName === 'Personal')!;
    const sent = [
      'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync e2e//EN', 'BEGIN:VEVENT', 'UID:ts-night@example.org', 'DTSTAMP:20310101T000000Z', 'SUMMARY:Night',
      'DTSTART;TZID=Australia/Sydney:20311005T020000', 'DTEND;TZID=Australia/Sydney:20311005T021500', 'RRULE:FREQ=DAILY;COUNT=3', 'END:VEVENT', 'END:VCALENDAR', '',
    ].join('\r\n');
    expect((await client.createCalendarObject({ calendar: personal, filename: 'ts-night.ics', iCalString: sent })).status).toBe(201);
    await account.sdk.sync();
    // 5 October: 02:00 does not exist, so 03:00 AEDT (16:00Z); then 02:00 AEDT (15:00Z), as RFC 5545 reads the text.
    const nights = ['2031-10-04T16:00:00.000Z', '2031-10-05T15:00:00.000Z', '2031-10-06T15:00:00.000Z'];
    const window = { from: '2031-10-01T00:00:00Z', to: '2031-10-10T00:00:00Z' };
    expect(account.sdk.occurrences({ ...window, tz: 'Australia/Sydney' }).occurrences.filter((o) => o.title === 'Night').map((o) => o.start)).toEqual(nights);
    const [back] = await client.fetchCalendarObjects({ calendar: personal, objectUrls: [new URL('ts-night.ics', personal.url).href] });
    const data = back!.data as string;
    expect(data).toContain('DTSTART;TZID=Australia/Sydney:20311004T020000');
    expect(pythonStarts(python, [sent, data].map((ics) => ({ ics, ...window, zone: 'Australia/Sydney' })))).toEqual([nights, nights]);
    await account.sdk.events.remove(account.sdk.events.list().find((e) => e.title === 'Night')!.uid);
    await account.sdk.sync();
  });
});

describe('vdirsyncer two-way sync', () => {
  let account: Account;
  let database: ScratchDatabase | undefined;
  let dir: string;
  const folder = () => join(dir, 'folder');
  const serverUrl = process.env.TEST_DATABASE_URL;
  const vdirsyncer = async (...args: string[]) => {
    try {
      return (await run('vdirsyncer', ['-c', join(dir, 'config'), ...args], { env: { ...process.env, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' } })).stderr;
    } catch (error) {
      const e = error as { stderr?: string; stdout?: string };
      throw new Error(`vdirsyncer ${args.join(' ')} failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
    }
  };
  /** The folder's objects: UID -> SUMMARY of the master component. */
  const folderSummaries = async (): Promise<Record<string, string>> => {
    const out: Record<string, string> = {};
    for (const file of (await readdir(folder())).filter((f) => f.endsWith('.ics'))) {
      const text = await readFile(join(folder(), file), 'utf8');
      const uid = /^UID:(.*)$/m.exec(text)![1]!.trim();
      const master = text.split('BEGIN:VEVENT').find((part) => part.includes('SUMMARY:') && !part.includes('RECURRENCE-ID'))!;
      out[uid] = /^SUMMARY:(.*)$/m.exec(master)![1]!.trim();
    }
    return out;
  };
  const fileOf = async (uid: string): Promise<string> => {
    for (const file of await readdir(folder())) if ((await readFile(join(folder(), file), 'utf8')).split(/\r?\n/).includes(`UID:${uid}`)) return join(folder(), file);
    throw new Error(`no file holds ${uid}`);
  };
  const retitle = async (uid: string, title: string) => {
    const path = await fileOf(uid);
    const text = await readFile(path, 'utf8');
    const master = text.indexOf('SUMMARY:');
    await writeFile(path, text.slice(0, master) + text.slice(master).replace(/^SUMMARY:.*$/m, `SUMMARY:${title}`));
  };
  /** Titles of the SDK's series and single events (overrides aside). */
  const sdkTitles = () => account.sdk.events.list().filter((e) => e.recurringEventUid == null).map((e) => e.title as string).sort();
  /** Titles of /api/occurrences over the test's window (one per event: the series' own occurrences share its title). */
  const serverTitles = async () => {
    const res = await fetch(`${account.base}/api/occurrences?from=2026-03-01T00:00:00Z&to=2026-05-01T00:00:00Z&limit=1000`, { headers: { authorization: `Bearer ${account.sdk.auth.accessToken()!}` } });
    const body = (await res.json()) as { data: { occurrences: Array<{ title: string; overridden?: boolean; seriesUid: string | null }> } };
    return [...new Set(body.data.occurrences.filter((o) => o.overridden !== true).map((o) => o.title))].sort();
  };
  const agree = async () => {
    await account.sdk.sync();
    const inFolder = Object.values(await folderSummaries()).sort();
    expect(sdkTitles()).toEqual(inFolder);
    expect(await serverTitles()).toEqual(inFolder);
    return inFolder;
  };

  beforeAll(async () => {
    database = serverUrl ? await createScratchDatabase(serverUrl) : undefined;
    account = await openAccount('vdirsyncer', database?.url ?? 'pglite://memory');
    dir = await mkdtemp(join(tmpdir(), 'calsync-vdirsyncer-'));
    await mkdir(folder(), { recursive: true });
    await mkdir(join(dir, 'status'), { recursive: true });
    const principal = await fetch(`${account.base}/dav/`, {
      method: 'PROPFIND',
      headers: { authorization: `Basic ${Buffer.from(`${account.phone}:${account.password}`).toString('base64')}`, depth: '0', 'content-type': 'application/xml' },
      body: '<d:propfind xmlns:d="DAV:"><d:prop><d:current-user-principal/></d:prop></d:propfind>',
    });
    const userId = /principals\/(\d+)\//.exec(await principal.text())![1]!;
    const config = [
      '[general]',
      `status_path = "${join(dir, 'status')}/"`,
      '[pair calsync]',
      'a = "folder"',
      'b = "server"',
      'collections = null',
      'conflict_resolution = "a wins"',
      '[storage folder]',
      'type = "filesystem"',
      `path = "${folder()}/"`,
      'fileext = ".ics"',
      '[storage server]',
      'type = "caldav"',
      `url = "${account.base}/dav/calendars/${userId}/${account.personal}/"`,
      `username = "${account.phone}"`,
      `password = "${account.password}"`,
      '',
    ];
    await writeFile(join(dir, 'config'), config.join('\n'));
    await vdirsyncer('discover', 'calsync');
  });
  afterAll(async () => {
    await closeAccount(account);
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('syncs a folder of .ics files both ways over several rounds; folder, SDK and /api/occurrences agree; a conflicting edit leaves a calsync conflict record', async () => {
    // Round 1: two files made in the folder reach the server and the SDK.
    await writeFile(join(folder(), 'vd-series@example.org.ics'), seriesWithUid('vd-series@example.org'));
    await writeFile(join(folder(), 'vd-lunch.ics'), single('vd-lunch', 'Lunch', '20260402'));
    await vdirsyncer('sync');
    expect(await agree()).toEqual(['Lunch', 'Stand-up']);

    // Round 2: the SDK makes one event and renames the series; the folder gets both.
    const series = account.sdk.events.list().find((e) => e.title === 'Stand-up')!;
    await account.sdk.events.put({ uid: series.uid, title: 'Stand-up (room 2)' });
    await account.sdk.events.put({ calendarUid: account.personal, title: 'Dentist', startTime: '2026-04-08T08:00:00.000Z', endTime: '2026-04-08T09:00:00.000Z' });
    await account.sdk.sync();
    await vdirsyncer('sync');
    expect(await agree()).toEqual(['Dentist', 'Lunch', 'Stand-up (room 2)']);
    // The override and the attendee the folder wrote are still in its file after the round trip.
    const seriesText = await readFile(await fileOf('vd-series@example.org'), 'utf8');
    expect(seriesText).toContain('RECURRENCE-ID;TZID=Europe/Berlin:20260330T090000');
    expect(seriesText).toContain('ATTENDEE;CN=Bob;PARTSTAT=ACCEPTED:mailto:bob@example.org');

    // Round 3: the folder renames one and deletes another; the SDK follows.
    await retitle('vd-lunch', 'Long lunch');
    const dentistUid = account.sdk.events.list().find((e) => e.title === 'Dentist')!.uid;
    await rm(await fileOf(dentistUid));
    await vdirsyncer('sync');
    expect(await agree()).toEqual(['Long lunch', 'Stand-up (room 2)']);
    expect(account.sdk.events.get(dentistUid)).toBeUndefined();

    // Round 4: the SDK deletes the series (its override goes with it); the folder's file goes.
    await account.sdk.events.remove(series.uid);
    await account.sdk.sync();
    await vdirsyncer('sync');
    expect(await agree()).toEqual(['Long lunch']);

    // Round 5: both sides edit the same event between two syncs. vdirsyncer's rule ("a wins": the
    // folder) decides, and the SDK gets the folder's version.
    const lunch = account.sdk.events.list().find((e) => e.title === 'Long lunch')!;
    await account.sdk.events.put({ uid: lunch.uid, title: 'Lunch (SDK)' });
    await account.sdk.sync();
    await retitle('vd-lunch', 'Lunch (folder)');
    await vdirsyncer('sync');
    expect(await agree()).toEqual(['Lunch (folder)']);

    // Round 6: the SDK edits while offline, the folder's edit reaches the server first: the SDK's
    // push is then a calsync conflict, recorded with both versions, and every side converges.
    await account.sdk.events.put({ uid: lunch.uid, title: 'Lunch (offline SDK)' });
    await retitle('vd-lunch', 'Lunch (folder again)');
    await vdirsyncer('sync');
    await account.sdk.sync();
    const conflicts = await account.sdk.conflicts.list();
    expect(conflicts).toHaveLength(1);
    // The later write wins (the SDK's), and the conflict keeps the folder's version it replaced.
    expect(conflicts[0]).toMatchObject({ entityType: 'EVENT', entityUid: lunch.uid, resolvedAt: null });
    expect((conflicts[0]!.loserSnapshot as { title?: string }).title).toBe('Lunch (folder again)');
    await vdirsyncer('sync');
    expect(await agree()).toEqual(['Lunch (offline SDK)']);
  });
});
