import { createSyncClient, MemoryStore, type SyncClient } from '@calsync/client';
import { pythonStarts, pythonWithOracle } from '@calsync/domain/test-support';
import { corpusFiles, icalShape } from '@calsync/ical/test-support';
import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './lib/test-server.js';

// The fidelity corpus (packages/ical/test-support/corpus: files in the shapes Google, Apple,
// Outlook, Thunderbird and DAVx5 write) through the real server: each file PUT over CalDAV comes
// back equal from GET, and the whole corpus imported with the SDK, published as a feed, expands
// (Python's recurring_ical_events, the oracle of the recurrence tests) to the same occurrences as
// the files themselves and as /api/occurrences.

const FROM = '2026-09-01T00:00:00Z';
const TO = '2027-08-31T00:00:00Z';
const files = corpusFiles();
const isTask = (text: string) => text.includes('BEGIN:VTODO');

/** The iCalendar UIDs of a file's events and tasks. */
function uidsOf(text: string): string[] {
  const root = new ICAL.Component(ICAL.parse(text));
  return [...new Set(root.getAllSubcomponents().filter((c) => c.name === 'vevent' || c.name === 'vtodo').map((c) => String(c.getFirstPropertyValue('uid'))))];
}

/** A file split the way a CalDAV client stores it: one VCALENDAR per UID, with the file's VTIMEZONEs. */
function resourcesOf(text: string): string[] {
  const uids = uidsOf(text);
  if (uids.length === 1) return [text];
  return uids.map((uid) => {
    const root = new ICAL.Component(ICAL.parse(text));
    for (const c of root.getAllSubcomponents()) if ((c.name === 'vevent' || c.name === 'vtodo') && c.getFirstPropertyValue('uid') !== uid) root.removeSubcomponent(c);
    return `${root.toString()}\r\n`;
  });
}

describe(`the iCalendar fidelity corpus (${files.length} files)`, () => {
  let server: TestServer;
  let sdk: SyncClient;
  let basic: string;
  let home: string;
  let personal: string;
  let importer: SyncClient | undefined;

  beforeAll(async () => {
    server = await startTestServer('ical-corpus');
    const base = server.server.baseUrl;
    const phone = '+15550009001';
    sdk = createSyncClient({ baseUrl: base, store: new MemoryStore(), device: { platform: 'web', name: 'SDK' }, periodicMs: 3_600_000, debounceMs: 5 });
    await sdk.open();
    await sdk.auth.sendOtp(phone);
    await sdk.auth.verifyOtp(phone, server.gateway.lastCode(phone));
    await sdk.sync();
    personal = sdk.calendars.list()[0]!.uid;
    const { password } = await sdk.appPasswords.create('corpus');
    basic = `Basic ${Buffer.from(`${phone}:${password}`).toString('base64')}`;
    const principal = await fetch(`${base}/dav/`, { method: 'PROPFIND', headers: { authorization: basic, depth: '0' }, body: '<d:propfind xmlns:d="DAV:"><d:prop><d:current-user-principal/></d:prop></d:propfind>' });
    home = `${base}/dav/calendars/${/principals\/(\d+)\//.exec(await principal.text())![1]!}/`;
  });
  afterAll(async () => {
    await sdk?.close();
    await importer?.close();
    await server?.stop();
  });

  it.each(files)('$name: PUT over CalDAV (one resource per UID, named by it, as calendar apps do), then GET gives back the same object', async ({ text }) => {
    for (const resource of resourcesOf(text)) {
      // Named <UID>.ics, as Apple Calendar, Thunderbird and DAVx5 name what they create.
      const url = `${home}${isTask(resource) ? 'tasks' : personal}/${encodeURIComponent(uidsOf(resource)[0]!)}.ics`;
      const put = await fetch(url, { method: 'PUT', headers: { authorization: basic, 'content-type': 'text/calendar; charset=utf-8', 'if-none-match': '*' }, body: resource });
      expect(put.status, await put.clone().text()).toBe(201);
      const got = await fetch(url, { headers: { authorization: basic } });
      expect(got.status).toBe(200);
      expect(got.headers.get('etag')).toBe(put.headers.get('etag'));
      expect(icalShape(await got.text(), { windowsZones: true })).toEqual(icalShape(resource, { windowsZones: true }));
    }
  });

  it('imported with the SDK (twice: nothing new the second time) and published as a feed, the corpus expands to the same occurrences as the files and as /api/occurrences', async () => {
    // Another account, so the records the CalDAV test above made (same UIDs, same record uids) stay apart.
    const phone = '+15550009002';
    const sdk = createSyncClient({ baseUrl: server.server.baseUrl, store: new MemoryStore(), device: { platform: 'web', name: 'Importer' }, periodicMs: 3_600_000, debounceMs: 5 });
    importer = sdk;
    await sdk.open();
    await sdk.auth.sendOtp(phone);
    await sdk.auth.verifyOtp(phone, server.gateway.lastCode(phone));
    await sdk.sync();
    const imported = await sdk.calendars.put({ name: 'Imported' });
    const token = () => sdk.auth.accessToken()!;
    const python = pythonWithOracle();
    expect(python, 'Debian python3-icalendar and python3-recurring-ical-events (installed by .ci/run)').not.toBeNull();
    let created = 0;
    const skipped: string[] = [];
    for (const f of files) {
      const r = await sdk.importIcs(f.text, { calendarUid: imported });
      created += r.created;
      skipped.push(...r.skipped.map((s) => `${f.name}: ${s.reason}`));
    }
    const objects = files.reduce((n, f) => n + uidsOf(f.text).length, 0);
    expect(created).toBe(objects);
    expect(skipped).toEqual([]);
    for (const f of files) expect(await sdk.importIcs(f.text, { calendarUid: imported })).toMatchObject({ created: 0, updated: 0 });
    await sdk.sync();

    const feed = await sdk.feeds.create(imported);
    expect(await sdk.feeds.list()).toEqual([{ id: feed.id, calendarUid: imported, createdAt: feed.createdAt }]);
    const feedText = await (await fetch(feed.url)).text();
    expect(() => ICAL.parse(feedText)).not.toThrow();

    const events = files.filter((f) => !isTask(f.text));
    const fromFiles = pythonStarts(python!, events.map((f) => ({ ics: f.text, from: FROM, to: TO, zone: null }))).flat().sort();
    const [fromFeed] = pythonStarts(python!, [{ ics: feedText, from: FROM, to: TO, zone: null }]);
    const api = await fetch(`${server.server.baseUrl}/api/occurrences?from=${FROM}&to=${TO}&calendarUid=${imported}`, { headers: { authorization: `Bearer ${token()}` } });
    const fromApi = ((await api.json()) as { data: { occurrences: Array<{ start: string }> } }).data.occurrences.map((o) => o.start).sort();
    expect(fromFiles.length).toBeGreaterThan(100);
    expect([...fromFeed!].sort()).toEqual(fromFiles);
    expect(fromApi).toEqual(fromFiles);
  });
});
