import ICAL from 'ical.js';
import { tzlib_get_ical_block } from 'timezones-ical-library';
import { localMsOf } from '../src/index.js';
import { icalLocal, type SeriesCase } from './series-arbitrary.js';

const DAY_MS = 86_400_000;

/** One occurrence as the oracle reports it: start as an ISO instant, or a date for all-day. */
export type OracleStart = string;

const registered = new Set<string>();

/** Registers the VTIMEZONE of `zone` with ical.js (once): it has no zone data of its own. */
function registerZone(zone: string): string {
  const [block] = tzlib_get_ical_block(zone) as [string, string];
  if (!registered.has(zone)) {
    const component = new ICAL.Component(ICAL.parse(`BEGIN:VCALENDAR\r\n${block}\r\nEND:VCALENDAR`)).getFirstSubcomponent('vtimezone');
    if (component === null) throw new Error(`no VTIMEZONE for ${zone}`);
    ICAL.TimezoneService.register(new ICAL.Timezone(component), zone);
    registered.add(zone);
  }
  return block;
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
 * change hours early (03:00Z on 6 Nov 2022 becomes 22:00 in New York instead of 23:00).
 */
function icalOffsetAt(zone: ICAL.Timezone, instant: number): number {
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

const HOUR_MS = 3_600_000;

/**
 * Whether the oracle's zone data gives `zone` the offset this runtime's (Intl's) gives it, at every
 * hour from `from` to `to`. timezones-ical-library's VTIMEZONEs hold each zone's rules of today
 * only, so in a year whose changes fell otherwise the oracle puts occurrences at other instants:
 * Santiago's summer time of 2022 began on 11 September, not on the 4th as its rule of today says
 * (until.oracle.test.ts found it). A case there is not one the oracle can judge.
 */
export function oracleZoneAgrees(zone: string, from: number, to: number): boolean {
  if (zone === 'UTC') return true;
  registerZone(zone);
  const tz = ICAL.TimezoneService.get(zone);
  if (tz === null || tz === undefined) throw new Error(`no VTIMEZONE for ${zone}`);
  for (let t = Math.floor(from / HOUR_MS) * HOUR_MS; t <= to; t += HOUR_MS) {
    if (icalOffsetAt(tz, t) !== localMsOf(t, zone) - t) return false;
  }
  return true;
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
