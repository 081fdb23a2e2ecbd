import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import type { StandInSmsGateway } from '@calsync/testkit';
import { agent, call, signIn } from '../lib/client.js';
import { processCpuSeconds } from '../lib/server.js';
import { lanes, msSince, percentile } from '../lib/stats.js';

/** One CalDAV server's figures, measured the way DAVx5 and Thunderbird sync. */
export interface DavFigures {
  /** Events stored by PUT (If-None-Match: *), 4 in flight. */
  putPerSecond: number;
  /** Initial sync: sync-collection from no token, then calendar-multiget of 100 hrefs at a time, 4 in flight. */
  initialSyncPerSecond: number;
  /** Incremental sync after 100 events changed: sync-collection from the last token plus one multiget of the changed hrefs (median of 3 rounds). */
  incrementalMs: number;
  /**
   * CPU of the server process (user + system, /proc; calsync's PostgreSQL backends not counted) per
   * PUT, per object of the initial sync, and per incremental round: what the machine's load does not
   * change as much as it changes the rates. Null when the process is not known.
   */
  cpuMs: { perPut: number; perSyncedObject: number; perIncrementalRound: number } | null;
}

/** The CalDAV workload on calsync and, in the same run, on Radicale (Debian's `radicale`) when it is installed. */
export interface CaldavFigures extends DavFigures {
  events: number;
  /**
   * The initial sync of a second collection of as many events, after the first one's: the same
   * work in a server whose read path has run (the headline is a fresh process's first sync, whose
   * code has not been optimised yet); no render of the first collection is reused.
   */
  initialSyncWarmPerSecond: number;
  /** The first collection synced again from no token (a second device): renders kept from the first sync are reused. */
  initialSyncRepeatPerSecond: number;
  radicale: DavFigures | null;
  /** calsync ÷ Radicale for the two rates, Radicale ÷ calsync for the time (above 1 means calsync is faster). */
  putRatio: number | null;
  initialSyncRatio: number | null;
  incrementalRatio: number | null;
}

const IN_FLIGHT = 4;

/** A CalDAV collection to drive, and the Authorization header of its user. */
interface DavTarget {
  readonly collection: string;
  readonly authorization: string;
}

async function dav(target: DavTarget, method: string, url: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const res = await request(url, {
    method: method as 'GET',
    headers: { authorization: target.authorization, 'content-type': body.startsWith('BEGIN:') ? 'text/calendar; charset=utf-8' : 'application/xml; charset=utf-8', ...headers },
    body: body === '' ? undefined : body,
    dispatcher: agent,
  });
  const text = await res.body.text();
  if (res.statusCode >= 400) throw new Error(`${method} ${url} -> ${res.statusCode}: ${text.slice(0, 300)}`);
  return { status: res.statusCode, text };
}

/** The hrefs of a multistatus answer that name .ics resources, and its sync token (whatever the server's namespace prefixes). */
function multistatusOf(text: string): { hrefs: string[]; token: string | null } {
  const hrefs = [...text.matchAll(/<(?:[A-Za-z0-9]+:)?href>([^<]+)<\/(?:[A-Za-z0-9]+:)?href>/g)].map((m) => m[1]!).filter((h) => h.endsWith('.ics'));
  const token = /<(?:[A-Za-z0-9]+:)?sync-token>([^<]+)<\/(?:[A-Za-z0-9]+:)?sync-token>/.exec(text)?.[1] ?? null;
  return { hrefs, token };
}

function vevent(i: number, summary: string, prefix = 'bench'): string {
  const start = new Date(Date.UTC(2027, 0, 1) + i * 3_600_000);
  const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//calsync bench//EN',
    'BEGIN:VEVENT',
    `UID:${prefix}-${i}@example.org`,
    'DTSTAMP:20260101T000000Z',
    `SUMMARY:${summary}`,
    `DTSTART:${stamp(start)}`,
    `DTEND:${stamp(new Date(start.getTime() + 1_800_000))}`,
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

const SYNC = (token: string) => `<?xml version="1.0" encoding="utf-8"?><d:sync-collection xmlns:d="DAV:"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`;
const MULTIGET = (hrefs: readonly string[]) =>
  `<?xml version="1.0" encoding="utf-8"?><c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>${hrefs.map((h) => `<d:href>${h}</d:href>`).join('')}</c:calendar-multiget>`;

/** PUTs `events` new events into a collection, 4 in flight, named and with UIDs `<prefix>-<i>` (a name is one record of the account: see docs/caldav.md). */
async function putAll(target: DavTarget, events: number, prefix = 'bench'): Promise<void> {
  await lanes(events, IN_FLIGHT, async (i) => {
    await dav(target, 'PUT', `${target.collection}${prefix}-${i}.ics`, vevent(i, `Event ${i}`, prefix), { 'if-none-match': '*' });
  });
}

/** Initial sync of a collection: sync-collection from no token, then multigets of 100 hrefs, 4 in flight; its rate and the token. */
async function initialSync(target: DavTarget, events: number): Promise<{ perSecond: number; token: string | null }> {
  const started = performance.now();
  const first = multistatusOf((await dav(target, 'REPORT', target.collection, SYNC(''), { depth: '1' })).text);
  const batches: string[][] = [];
  for (let i = 0; i < first.hrefs.length; i += 100) batches.push(first.hrefs.slice(i, i + 100));
  let fetched = 0;
  await lanes(batches.length, IN_FLIGHT, async (b) => {
    const answer = await dav(target, 'REPORT', target.collection, MULTIGET(batches[b]!), { depth: '1' });
    fetched += (answer.text.match(/BEGIN:VEVENT/g) ?? []).length;
  });
  const perSecond = fetched / (msSince(started) / 1000);
  if (fetched !== events) throw new Error(`initial sync fetched ${fetched} of ${events} events`);
  return { perSecond, token: first.token };
}

/** PUT, initial sync and incremental sync on one server. */
async function measure(target: DavTarget, events: number, cpuSeconds: (() => number) | null): Promise<DavFigures> {
  const cpu = cpuSeconds ?? (() => 0);
  const cpuAtStart = cpu();
  const started = performance.now();
  await putAll(target, events);
  const putPerSecond = events / (msSince(started) / 1000);
  const cpuAfterPuts = cpu();

  const initial = await initialSync(target, events);
  const first = initial;
  const initialSyncPerSecond = initial.perSecond;
  const cpuAfterInitialSync = cpu();

  let token = first.token ?? '';
  const rounds: number[] = [];
  let roundsCpu = 0;
  for (let round = 0; round < 3; round++) {
    await lanes(100, IN_FLIGHT, async (k) => {
      const i = (round * 100 + k * 7) % events;
      await dav(target, 'PUT', `${target.collection}bench-${i}.ics`, vevent(i, `Event ${i} (round ${round})`));
    });
    const t = performance.now();
    const cpuBefore = cpu();
    const changed = multistatusOf((await dav(target, 'REPORT', target.collection, SYNC(token), { depth: '1' })).text);
    const got = await dav(target, 'REPORT', target.collection, MULTIGET(changed.hrefs.map((h) => (h.startsWith('http') ? new URL(h).pathname : h))), { depth: '1' });
    rounds.push(msSince(t));
    roundsCpu += cpu() - cpuBefore;
    if ((got.text.match(/BEGIN:VEVENT/g) ?? []).length !== 100) throw new Error(`incremental sync saw ${(got.text.match(/BEGIN:VEVENT/g) ?? []).length} of 100 changes`);
    token = changed.token ?? token;
  }
  const cpuMs =
    cpuSeconds === null
      ? null
      : { perPut: ((cpuAfterPuts - cpuAtStart) * 1000) / events, perSyncedObject: ((cpuAfterInitialSync - cpuAfterPuts) * 1000) / events, perIncrementalRound: (roundsCpu * 1000) / rounds.length };
  return { putPerSecond, initialSyncPerSecond, incrementalMs: percentile(rounds, 50), cpuMs };
}

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Radicale 3 on a scratch folder, no authentication (any user name owns its own collections). */
async function startRadicale(): Promise<{ url: string; cpuSeconds: () => number; stop: () => void } | null> {
  const binary = ['/usr/bin/radicale', '/usr/local/bin/radicale'].find((p) => existsSync(p));
  if (binary === undefined) return null;
  const dir = mkdtempSync(join(tmpdir(), 'calsync-radicale-'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'config'),
    [`[server]`, `hosts = 127.0.0.1:${port}`, `[auth]`, `type = none`, `[rights]`, `type = owner_only`, `[storage]`, `filesystem_folder = ${join(dir, 'collections')}`, `[logging]`, `level = warning`, ''].join('\n'),
  );
  const child: ChildProcess = spawn(binary, ['--config', join(dir, 'config')], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`${url}/.web/`);
      return {
        url,
        cpuSeconds: () => processCpuSeconds(child.pid!),
        stop: () => {
          child.kill('SIGTERM');
          rmSync(dir, { recursive: true, force: true });
        },
      };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill('SIGKILL');
  throw new Error('radicale did not start');
}

/** The CalDAV workload: calsync (an app password of a fresh user, a new calendar by MKCALENDAR) and Radicale the same way. */
export async function runCaldav(baseUrl: string, gateway: StandInSmsGateway, opts: { events: number; serverCpuSeconds?: () => number }): Promise<CaldavFigures> {
  const phone = '+15550007001';
  const session = await signIn(baseUrl, gateway, phone, 'bench-caldav');
  const { password } = await call<{ password: string }>(baseUrl, 'POST', '/api/auth/app-passwords', { token: session.token, body: { name: 'bench' } });
  const ours: DavTarget = { collection: `${baseUrl}/dav/calendars/${session.userId}/bench/`, authorization: `Basic ${Buffer.from(`${phone}:${password}`).toString('base64')}` };
  await dav(ours, 'MKCALENDAR', ours.collection, '');
  const calsync = await measure(ours, opts.events, opts.serverCpuSeconds ?? null);
  const second: DavTarget = { ...ours, collection: `${baseUrl}/dav/calendars/${session.userId}/bench-warm/` };
  await dav(second, 'MKCALENDAR', second.collection, '');
  await putAll(second, opts.events, 'warm');
  const initialSyncWarmPerSecond = (await initialSync(second, opts.events)).perSecond;
  const initialSyncRepeatPerSecond = (await initialSync(ours, opts.events)).perSecond;
  console.log(`bench: caldav on calsync: ${JSON.stringify({ ...calsync, initialSyncWarmPerSecond, initialSyncRepeatPerSecond })}`);

  let radicale: DavFigures | null = null;
  const peer = await startRadicale();
  if (peer === null) console.log('bench: radicale is not installed (apt-get install radicale): the CalDAV peer is skipped');
  else {
    try {
      const theirs: DavTarget = { collection: `${peer.url}/bench/bench/`, authorization: `Basic ${Buffer.from('bench:x').toString('base64')}` };
      await dav(theirs, 'MKCALENDAR', theirs.collection, '');
      radicale = await measure(theirs, opts.events, peer.cpuSeconds);
      console.log(`bench: caldav on radicale: ${JSON.stringify(radicale)}`);
    } finally {
      peer.stop();
    }
  }
  return {
    events: opts.events,
    ...calsync,
    initialSyncWarmPerSecond,
    initialSyncRepeatPerSecond,
    radicale,
    putRatio: radicale ? calsync.putPerSecond / radicale.putPerSecond : null,
    initialSyncRatio: radicale ? calsync.initialSyncPerSecond / radicale.initialSyncPerSecond : null,
    incrementalRatio: radicale ? radicale.incrementalMs / calsync.incrementalMs : null,
  };
}
