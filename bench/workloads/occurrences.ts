import type { StandInSmsGateway } from '@calsync/testkit';
import { call, push, signIn } from '../lib/client.js';
import { uid } from '../lib/ids.js';
import { signedInDevice } from '../lib/sdk-device.js';
import { msSince, percentile } from '../lib/stats.js';

/** Figures of the occurrence workload (a calendar view's reads). */
export interface OccurrenceFigures {
  events: number;
  series: number;
  overrides: number;
  /** Occurrences a month window holds on average. */
  perMonth: number;
  /** GET /api/occurrences month windows after one pass over the twelve months (as the SDK figures are taken). */
  serverMonthP50Ms: number;
  serverMonthP99Ms: number;
  /** The first pass over the twelve months (a fresh process: cold code, nothing kept), median. */
  serverMonthFirstMs: number;
  /**
   * A month asked right after the user changed an event (so nothing kept for the month holds:
   * the window is read and expanded again), median and p99, after the warm passes.
   */
  serverMonthChangedP50Ms: number;
  serverMonthChangedP99Ms: number;
  /** client.occurrences() for a month window, median over the twelve months of the year, after one pass over them. */
  sdkMonthMs: number;
  /** The same, first pass (each year of each series expanded for the first time). */
  sdkMonthFirstMs: number;
  /** client.occurrences() for the whole year, median of repeats. */
  sdkYearMs: number;
  sdkYearFirstMs: number;
  /** events.list() on the same client right after one local edit (what a view re-renders from), median of 50, in µs. */
  sdkListAfterEditUs: number;
}

/** Mixed rules a calendar holds: stand-ups, weekly meetings, fortnightly ones, month ends, birthdays, short runs. */
const RULES = [
  'FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR',
  'FREQ=WEEKLY',
  'FREQ=WEEKLY;BYDAY=MO,WE',
  'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU',
  'FREQ=MONTHLY;BYDAY=2TU',
  'FREQ=MONTHLY;BYMONTHDAY=-1',
  'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1',
  'FREQ=YEARLY',
  'FREQ=DAILY;COUNT=20',
  'FREQ=WEEKLY;UNTIL=20270301T000000Z',
];
const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Sydney', 'UTC'];
const YEAR = 2027;
const DAY_MS = 86_400_000;

/** The user's 2,000 events: 200 series (rules and zones mixed, started up to two years back), 20 overrides, the rest single events over the year. */
function eventItems(calendarUid: string): { events: Record<string, unknown>[]; overrides: Record<string, unknown>[] } {
  let seed = 7;
  const next = (n: number) => (seed = (seed * 16_807) % 2_147_483_647) % n;
  const events: Record<string, unknown>[] = [];
  const overrides: Record<string, unknown>[] = [];
  for (let i = 0; i < 2000; i++) {
    const series = i < 200;
    const day = series ? Date.UTC(YEAR - 2, 0, 1) + next(700) * DAY_MS : Date.UTC(YEAR, 0, 1) + next(365) * DAY_MS;
    const start = day + (7 + next(11)) * 3_600_000 + next(4) * 900_000;
    const allDay = !series && next(10) === 0;
    const item: Record<string, unknown> = {
      uid: uid(series ? 'series-' : 'ev-'),
      op: 'upsert',
      baseVersion: null,
      calendarUid,
      title: `Event ${i}`,
      allDay,
      startTime: allDay ? new Date(day).toISOString().slice(0, 10) : new Date(start).toISOString(),
      endTime: allDay ? new Date(day + DAY_MS).toISOString().slice(0, 10) : new Date(start + (1 + next(4)) * 1_800_000).toISOString(),
      ...(allDay ? {} : { timezone: ZONES[i % ZONES.length] }),
      ...(series ? { rrule: RULES[i % RULES.length] } : {}),
    };
    events.push(item);
    if (series && i % 10 === 3) {
      // An override of the series' first occurrence: moved by two hours, retitled.
      overrides.push({
        uid: uid('ov-'),
        op: 'upsert',
        baseVersion: null,
        calendarUid,
        title: `Event ${i} (moved)`,
        startTime: new Date(start + 7_200_000).toISOString(),
        endTime: new Date(start + 9_000_000).toISOString(),
        timezone: item.timezone,
        recurringEventUid: item.uid,
        originalStartTime: item.startTime,
      });
    }
  }
  return { events, overrides };
}

function monthWindow(month: number): { from: string; to: string } {
  return { from: new Date(Date.UTC(YEAR, month, 1)).toISOString(), to: new Date(Date.UTC(YEAR, month + 1, 1)).toISOString() };
}

/**
 * A calendar view's reads for a user with 2,000 events of which 200 are series (20 with an
 * override): GET /api/occurrences month windows (one pass over the twelve months first, reported
 * apart; then server p50/p99 of sequential requests over them), and client.occurrences() in this
 * process for month and year windows.
 */
export async function runOccurrences(baseUrl: string, gateway: StandInSmsGateway, opts: { requests: number }): Promise<OccurrenceFigures> {
  const phone = '+15550009999';
  const session = await signIn(baseUrl, gateway, phone, 'bench-occurrences');
  const calendars = await call<{ calendars: { uid: string; isDefault: boolean }[] }>(baseUrl, 'GET', '/api/sync/changes?limit=1000', { token: session.token });
  const calendarUid = calendars.calendars.find((c) => c.isDefault)!.uid;
  const { events, overrides } = eventItems(calendarUid);
  const versions = new Map<string, string>();
  for (let i = 0; i < events.length; i += 1000) {
    const answer = await push(baseUrl, session.token, { events: events.slice(i, i + 1000) });
    for (const r of answer.events) if (r.status !== 'error' && r.version !== null) versions.set(r.uid, r.version);
  }
  await push(baseUrl, session.token, { events: overrides });

  const server: number[] = [];
  const serverFirst: number[] = [];
  let occurrences = 0;
  for (let r = 0; r < 12 + opts.requests; r++) {
    const { from, to } = monthWindow(r % 12);
    const t0 = performance.now();
    const page = await call<{ occurrences: unknown[]; truncated: boolean }>(baseUrl, 'GET', `/api/occurrences?from=${from}&to=${to}&tz=Europe/Berlin`, { token: session.token });
    (r < 12 ? serverFirst : server).push(msSince(t0));
    if (r < 12) occurrences += page.occurrences.length;
  }

  // After a change: a one-event edit, then the month (the user's version moved, so it is read,
  // expanded and serialized again). The edit is not timed.
  const changed: number[] = [];
  const edited = String(events[200]!.uid);
  let version = versions.get(edited)!;
  for (let r = 0; r < Math.min(120, opts.requests); r++) {
    const answer = await push(baseUrl, session.token, { events: [{ uid: edited, op: 'upsert', baseVersion: version, title: `Event 200 (${r})` }] });
    const result = answer.events[0]!;
    if (result.status !== 'updated' || result.version === null) throw new Error(`the edit answered ${JSON.stringify(result)}`);
    version = result.version;
    const { from, to } = monthWindow(r % 12);
    const t0 = performance.now();
    await call(baseUrl, 'GET', `/api/occurrences?from=${from}&to=${to}&tz=Europe/Berlin`, { token: session.token });
    changed.push(msSince(t0));
  }

  const device = await signedInDevice(baseUrl, gateway, phone, 'bench-occurrences-sdk');
  try {
    if (device.events.list().length !== events.length + overrides.length) throw new Error(`the SDK holds ${device.events.list().length} events`);
    const time = (window: { from: string; to: string }): number => {
      const t0 = performance.now();
      device.occurrences({ ...window, tz: 'Europe/Berlin' });
      return msSince(t0);
    };
    const firstMonths = Array.from({ length: 12 }, (_, m) => time(monthWindow(m)));
    const months: number[] = [];
    for (let pass = 0; pass < 5; pass++) for (let m = 0; m < 12; m++) months.push(time(monthWindow(m)));
    // The year after: none of its spans has been expanded yet, so its first query is a cold one.
    const yearWindow = { from: new Date(Date.UTC(YEAR + 1, 0, 1)).toISOString(), to: new Date(Date.UTC(YEAR + 2, 0, 1)).toISOString() };
    const yearFirst = time(yearWindow);
    const years = Array.from({ length: 10 }, () => time(yearWindow));
    const lists: number[] = [];
    const edited = device.events.list()[0]!.uid;
    for (let i = 0; i < 50; i++) {
      await device.events.put({ uid: edited, title: `listed ${i}` });
      const t0 = performance.now();
      const listed = device.events.list();
      lists.push(msSince(t0) * 1000);
      if (listed.length !== events.length + overrides.length) throw new Error(`the SDK lists ${listed.length} events after an edit`);
    }
    return {
      events: events.length,
      series: 200,
      overrides: overrides.length,
      perMonth: occurrences / 12,
      serverMonthP50Ms: percentile(server, 50),
      serverMonthP99Ms: percentile(server, 99),
      serverMonthFirstMs: percentile(serverFirst, 50),
      serverMonthChangedP50Ms: percentile(changed, 50),
      serverMonthChangedP99Ms: percentile(changed, 99),
      sdkMonthMs: percentile(months, 50),
      sdkMonthFirstMs: percentile(firstMonths, 50),
      sdkYearMs: percentile(years, 50),
      sdkYearFirstMs: yearFirst,
      sdkListAfterEditUs: percentile(lists, 50),
    };
  } finally {
    await device.close();
  }
}
