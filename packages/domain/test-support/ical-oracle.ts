import ICAL from 'ical.js';
import { icalLocal, type SeriesCase } from './series-arbitrary.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** One occurrence as the oracle reports it: start as an ISO instant, or a date for all-day. */
export type OracleStart = string;

/**
 * The instants the oracle's zone data covers: every case the properties draw (series-arbitrary.ts:
 * DTSTART from 2021 to 2030, moved up to eight years on to an occurrence of its rule, and windows up
 * to four years past it, so about 2043 at the latest; until.oracle.test.ts: up to 2032) with years
 * to spare either side. An offset asked for outside them is an error (icalOffsetAt), not
 * a guess.
 */
export const ZONE_DATA_FROM = Date.UTC(2018, 0, 1);
export const ZONE_DATA_TO = Date.UTC(2051, 0, 1);

/** One change of a zone's offset: its instant (ms) and the offsets before and after it (seconds, local minus UTC). */
interface OffsetChange {
  at: number;
  from: number;
  to: number;
}

/**
 * `zone`'s offset (seconds, local minus UTC) at an instant, read from this runtime's Intl (the tz
 * data our expansion places wall times with) through a formatter of its own: the oracle shares
 * the data with the code it judges, not that code's reading of it (zone.ts).
 */
function intlOffsetReader(zone: string): (instant: number) => number {
  const format = new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: 'numeric', timeZoneName: 'longOffset' });
  return (instant) => {
    const m = /GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(format.format(instant));
    if (m === null) throw new Error(`no offset of ${zone} in ${format.format(instant)}`);
    if (m[1] === undefined) return 0;
    return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4] ?? '0'));
  };
}

/**
 * Every change of `zone`'s offset from `from` to `to`, by Intl: its offset read at every hour, and
 * each hour in which it differs bisected to the second (tz data changes offsets on whole seconds,
 * never twice within an hour).
 */
function intlChanges(zone: string, from: number, to: number): { initial: number; changes: OffsetChange[] } {
  const offsetAt = intlOffsetReader(zone);
  const initial = offsetAt(from);
  const changes: OffsetChange[] = [];
  let before = initial;
  for (let t = from + HOUR_MS; t <= to; t += HOUR_MS) {
    const after = offsetAt(t);
    if (after === before) continue;
    // The change lies in (t - 1 h, t]: the first second at the new offset.
    let lo = t - HOUR_MS;
    let hi = t;
    while (hi - lo > 1000) {
      const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
      if (offsetAt(mid) === before) lo = mid;
      else hi = mid;
    }
    changes.push({ at: hi, from: before, to: after });
    before = after;
  }
  return { initial, changes };
}

/** An RFC 5545 UTC offset (±hhmm, ±hhmmss when it has seconds) of an offset in seconds. */
function utcOffsetText(seconds: number): string {
  const abs = Math.abs(seconds);
  const pad = (n: number) => String(n).padStart(2, '0');
  const text = `${seconds < 0 ? '-' : '+'}${pad(Math.floor(abs / 3600))}${pad(Math.floor(abs / 60) % 60)}`;
  return abs % 60 === 0 ? text : `${text}${pad(abs % 60)}`;
}

const blocks = new Map<string, string>();
const registered = new Set<string>();

/**
 * The VTIMEZONE of `zone` over the oracle's years, written from this runtime's Intl: one
 * sub-component for the offset at ZONE_DATA_FROM, then one per change, with no RRULE, so every
 * year has the changes it really has: Santiago's summer time began on 11 September 2022 and on 8
 * September 2024, not on the first Sundays (the 4th, the 1st) that a VTIMEZONE of one yearly rule
 * puts it on, as timezones-ical-library's did, which held each zone's rules of today. DTSTART is
 * the wall time at which the change happens, in the offset before it (TZOFFSETFROM), as RFC 5545
 * §3.6.5 has it. A change to more than the smallest offset of its year is DAYLIGHT, any other
 * STANDARD (ical.js reads only the offsets, but for that flag on a repeated time).
 */
export function zoneVtimezone(zone: string): string {
  let block = blocks.get(zone);
  if (block === undefined) {
    const { initial, changes } = intlChanges(zone, ZONE_DATA_FROM, ZONE_DATA_TO);
    const yearOf = (instant: number) => new Date(instant).getUTCFullYear();
    const smallest = new Map<number, number>();
    let offset = initial;
    for (let year = yearOf(ZONE_DATA_FROM); year <= yearOf(ZONE_DATA_TO); year += 1) {
      const ofYear = changes.filter((c) => yearOf(c.at) === year);
      smallest.set(year, Math.min(offset, ...ofYear.map((c) => c.to)));
      offset = ofYear.at(-1)?.to ?? offset;
    }
    const component = (at: number, from: number, to: number) => {
      const kind = to > smallest.get(yearOf(at))! ? 'DAYLIGHT' : 'STANDARD';
      return [`BEGIN:${kind}`, `DTSTART:${icalLocal(at + from * 1000, false)}`, `TZOFFSETFROM:${utcOffsetText(from)}`, `TZOFFSETTO:${utcOffsetText(to)}`, `END:${kind}`];
    };
    block = [
      'BEGIN:VTIMEZONE',
      `TZID:${zone}`,
      ...component(ZONE_DATA_FROM, initial, initial),
      ...changes.flatMap((c) => component(c.at, c.from, c.to)),
      'END:VTIMEZONE',
    ].join('\r\n');
    blocks.set(zone, block);
  }
  return block;
}

/** Registers the VTIMEZONE of `zone` with ical.js (once): it has no zone data of its own. */
function registerZone(zone: string): string {
  const block = zoneVtimezone(zone);
  if (!registered.has(zone)) {
    const component = new ICAL.Component(ICAL.parse(`BEGIN:VCALENDAR\r\n${block}\r\nEND:VCALENDAR`)).getFirstSubcomponent('vtimezone');
    if (component === null) throw new Error(`no VTIMEZONE for ${zone}`);
    ICAL.TimezoneService.register(new ICAL.Timezone(component), zone);
    registered.add(zone);
  }
  return block;
}

/** `zone` as ical.js has it, from the VTIMEZONE of zoneVtimezone. */
export function icalZone(zone: string): ICAL.Timezone {
  registerZone(zone);
  const tz = ICAL.TimezoneService.get(zone);
  if (tz === null || tz === undefined) throw new Error(`no VTIMEZONE for ${zone}`);
  return tz;
}

/** One change of offset in ical.js's expansion of a VTIMEZONE: its moment in UTC, offsets in seconds. */
interface IcalChange {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  utcOffset: number;
}

/**
 * `zone`'s offset (local minus UTC, ms) at an instant, from the changes ical.js expands out of the
 * VTIMEZONE (held in UTC). Its own UTC-to-local conversion is not used: near a change it applies the
 * change hours early (03:00Z on 6 Nov 2022 becomes 22:00 in New York instead of 23:00). Outside
 * the years of the zone data (ZONE_DATA_FROM to ZONE_DATA_TO) there is no answer: it throws.
 */
export function icalOffsetAt(zone: ICAL.Timezone, instant: number): number {
  if (instant < ZONE_DATA_FROM || instant >= ZONE_DATA_TO) throw new Error(`${new Date(instant).toISOString()} is outside the oracle's zone data (ZONE_DATA_FROM, ZONE_DATA_TO)`);
  const year = new Date(instant).getUTCFullYear();
  const internals = zone as unknown as { _ensureCoverage(year: number): void; changes: IcalChange[] };
  internals._ensureCoverage(year + 1);
  let offset: number | null = null;
  for (const c of internals.changes) {
    if (Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second) > instant) break;
    offset = c.utcOffset;
  }
  if (offset === null) throw new Error(`no offset of ${zone.tzid} at ${new Date(instant).toISOString()}`);
  return offset * 1000;
}

/**
 * The instant of a wall-clock time by RFC 5545 §3.3.5, on ical.js's offsets. ical.js itself reads
 * a time that a spring-forward change skips with the offset after the gap (02:30 on the day Berlin
 * moves to summer time becomes 00:30Z, an instant before the gap); the RFC says the offset before
 * it (01:30Z), and a repeated time is the first of the two.
 */
function rfcInstant(zone: ICAL.Timezone, wall: number): number {
  const early = icalOffsetAt(zone, wall - DAY_MS);
  const late = icalOffsetAt(zone, wall + DAY_MS);
  const valid = [wall - early, wall - late].filter((c, i) => icalOffsetAt(zone, c) === (i === 0 ? early : late));
  return valid.length > 0 ? Math.min(...valid) : wall - early;
}

/** The VCALENDAR text of a case: one VEVENT with DTSTART (TZID or VALUE=DATE), DTEND, RRULE and EXDATE. */
export function caseCalendar(c: SeriesCase, exdates: readonly string[]): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync//recurrence oracle//EN'];
  const zoned = !c.allDay && c.zone !== 'UTC';
  if (zoned) lines.push(registerZone(c.zone));
  lines.push('BEGIN:VEVENT', 'UID:oracle@calsync', 'DTSTAMP:20260101T000000Z');
  if (c.allDay) {
    lines.push(`DTSTART;VALUE=DATE:${icalLocal(c.startLocal, true)}`, `DTEND;VALUE=DATE:${icalLocal(c.startLocal + c.duration * DAY_MS, true)}`);
  } else if (zoned) {
    lines.push(`DTSTART;TZID=${c.zone}:${icalLocal(c.startLocal, false)}`, `DURATION:PT${c.duration / 60_000}M`);
  } else {
    lines.push(`DTSTART:${icalLocal(c.startLocal, false)}Z`, `DURATION:PT${c.duration / 60_000}M`);
  }
  lines.push(`RRULE:${c.rule}`);
  for (const x of exdates) {
    lines.push(c.allDay ? `EXDATE;VALUE=DATE:${x.replaceAll('-', '')}` : `EXDATE:${x.replace(/[-:]/g, '').replace(/\.\d{3}/, '')}`);
  }
  lines.push('END:VEVENT', 'END:VCALENDAR');
  return lines.join('\r\n');
}

/**
 * ical.js's occurrences of a case: every start from DTSTART on (`limit` at most, stopping past
 * `until`), as ISO instants (timed) or dates (all-day); null when ical.js cannot answer. ical.js
 * 2.2 gives up on a monthly rule with BYDAY and BYMONTHDAY ("Malformed values in BYDAY combined
 * with BYMONTHDAY parts") when the months it walks hold no match for four years, even once it is
 * past UNTIL, which it checks only on what it found (FREQ=MONTHLY;INTERVAL=3;BYDAY=SA;
 * BYMONTHDAY=3,10,11;UNTIL=20230610 from 11 June 2022, found by the property at 20,000 runs).
 */
export function icalStarts(c: SeriesCase, exdates: readonly string[], until: number, limit = 20_000): OracleStart[] | null {
  try {
    return icalStartsOrThrow(c, exdates, until, limit);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('Malformed values in BYDAY combined with BYMONTHDAY')) return null;
    throw error;
  }
}

function icalStartsOrThrow(c: SeriesCase, exdates: readonly string[], until: number, limit: number): OracleStart[] {
  const calendar = new ICAL.Component(ICAL.parse(caseCalendar(c, exdates)));
  const vevent = calendar.getFirstSubcomponent('vevent');
  if (vevent === null) throw new Error('no VEVENT');
  const event = new ICAL.Event(vevent);
  const iterator = event.iterator();
  const out: OracleStart[] = [];
  for (let next = iterator.next(); next !== null && next !== undefined && out.length < limit; next = iterator.next()) {
    if (c.allDay) {
      const date = next.toString().slice(0, 10);
      if (Date.parse(`${date}T00:00:00Z`) >= until) break;
      out.push(date);
    } else {
      const zone = c.zone === 'UTC' ? null : ICAL.TimezoneService.get(c.zone);
      const wall = Date.UTC(next.year, next.month - 1, next.day, next.hour, next.minute, next.second);
      // A wall time a day past `until` is past it at any offset: the walk ends there without its
      // offset, which a rare rule's next occurrence may not have within the zone data's years
      // (FREQ=DAILY;INTERVAL=2;BYDAY=TH;BYMONTHDAY=26;BYMONTH=9 from 2024 next meets in 2047).
      if (wall - DAY_MS >= until) break;
      const at = zone === null || zone === undefined ? next.toUnixTime() * 1000 : rfcInstant(zone, wall);
      if (at >= until) break;
      out.push(new Date(at).toISOString());
    }
  }
  // An instant occurs once: ical.js repeats one that two BYDAY entries name, and walks a monthly
  // BYMONTH rule's first month twice. Its EXDATE then removes only the first of the two (an
  // excluded DTSTART that the rule names again came back), while RFC 5545 excludes the instant.
  const excluded = new Set(exdates);
  return [...new Set(out)].filter((s) => !excluded.has(s)).sort();
}

/** The oracle's starts that overlap the case's window (`end > from` and `start < to`; all-day dates in UTC). */
export function inWindow(c: SeriesCase, starts: readonly OracleStart[]): OracleStart[] {
  return starts.filter((s) => {
    const at = Date.parse(c.allDay ? `${s}T00:00:00Z` : s);
    const end = at + (c.allDay ? c.duration * DAY_MS : c.duration);
    return at < c.to && end > c.from;
  });
}
