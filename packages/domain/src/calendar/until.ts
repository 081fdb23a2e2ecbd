import { dateIn, instantOfLocal, localMsOf } from './zone.js';

const DAY_MS = 86_400_000;

/**
 * An RRULE's UNTIL as written, in one of RFC 5545's three forms (§3.3.10, which pairs a date with
 * an all-day series, UTC with a series in a zone and a floating time with a floating series;
 * clients also write the others). `wall` is the written time as ms: a date's 00:00, a floating
 * time as it reads, a UTC time's instant.
 */
export interface UntilValue {
  readonly form: 'date' | 'floating' | 'utc';
  readonly wall: number;
}

/** What an UNTIL is read against: whether the series is all-day, and the zone its times are in. */
export interface UntilSeries {
  readonly allDay: boolean;
  readonly zone: string;
}

const UNTIL_VALUE = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?$/;

/** A wall-clock time as ms: Date.UTC that also means years 0..99 literally. */
export function wallTime(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number {
  const date = new Date(Date.UTC(2000, mo, d, h, mi, s));
  date.setUTCFullYear(y);
  return date.getTime();
}

/** An UNTIL's text read, or null when it is not one of RFC 5545's three forms. */
export function parseUntil(text: string): UntilValue | null {
  const m = UNTIL_VALUE.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  if (m[4] === undefined) return { form: 'date', wall: wallTime(y, mo, d) };
  return { form: m[7] === 'Z' ? 'utc' : 'floating', wall: wallTime(y, mo, d, Number(m[4]), Number(m[5]), Number(m[6])) };
}

/** The text of an UNTIL value: `YYYYMMDD`, `YYYYMMDDTHHMMSS` or `YYYYMMDDTHHMMSSZ` (a date's time of day is dropped). */
export function untilText(value: UntilValue): string {
  const iso = new Date(value.wall).toISOString();
  const date = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}`;
  if (value.form === 'date') return date;
  return `${date}T${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}${value.form === 'utc' ? 'Z' : ''}`;
}

/** The UNTIL of a date-time in UTC, as a series in a zone writes it (`YYYYMMDDTHHMMSSZ`). */
export function utcUntil(instant: number): string {
  return untilText({ form: 'utc', wall: instant });
}

/**
 * An UNTIL in the form RFC 5545 §3.3.10 asks of a series' DTSTART, meaning the same last moment as
 * here: a date for an all-day series (whose times are dates: a date-time's own date), a UTC
 * date-time for a timed one. A date on a timed series is read here as that whole day in the
 * series' zone, and a floating time as a time of that zone; ical.js and python-dateutil read the
 * former as its day's first moment, which would end the series a day sooner.
 */
export function rfcUntil(value: UntilValue, series: UntilSeries): string {
  if (series.allDay) return untilText({ form: 'date', wall: value.wall });
  if (value.form === 'utc') return untilText(value);
  return utcUntil(instantOfLocal(untilLocalOf(value, (instant) => localMsOf(instant, series.zone)), series.zone));
}

/**
 * UNTIL as a local time (ms, floating) for a series in `toLocal`'s zone: a UTC date-time is moved
 * into the zone; a floating date-time is taken as written; a date is its whole day (UNTIL is
 * inclusive; an all-day series' occurrences sit at 00:00, so they are in).
 */
export function untilLocalOf(value: UntilValue, toLocal: (instant: number) => number): number {
  if (value.form === 'date') return value.wall + DAY_MS - 1000;
  return value.form === 'utc' ? toLocal(value.wall) : value.wall;
}

/** A rule's UNTIL read, or null when it has none (or one that is none of the three forms). */
export function untilOf(rule: string): UntilValue | null {
  const part = rule.split(';').find((p) => p.startsWith('UNTIL='));
  return part === undefined ? null : parseUntil(part.slice('UNTIL='.length));
}

/** `rule` with its UNTIL in RFC 5545's form for the series (`rfcUntil`), as a calendar app reads it; unchanged without one. */
export function withRfcUntil(rule: string, series: UntilSeries): string {
  const value = untilOf(rule);
  if (value === null) return rule;
  return rule
    .split(';')
    .map((p) => (p.startsWith('UNTIL=') ? `UNTIL=${rfcUntil(value, series)}` : p))
    .join(';');
}

/**
 * The UNTIL that makes `date` (`YYYY-MM-DD`) a series' last day: the date itself for an all-day
 * series; for a timed one the last second of that day in the series' zone, in UTC as RFC 5545 asks
 * of a series with a zone (the day's end read by §3.3.5's rules where a change of offset meets it).
 */
export function untilOfLastDay(date: string, series: UntilSeries): string {
  const day = parseUntil(date.replace(/-/g, ''));
  if (day === null || day.form !== 'date') throw new Error(`not a date: ${date}`);
  return rfcUntil(day, series);
}

/**
 * The last day (`YYYY-MM-DD`) an UNTIL lets a series in `zone` occur on: a date as written, a
 * floating time's own date, a UTC time's date in the zone. Null when the text is not an UNTIL.
 */
export function lastDayOfUntil(until: string, zone: string): string | null {
  const value = parseUntil(until);
  if (value === null) return null;
  // A date or a floating time names its day as written (its wall time read in UTC).
  return dateIn(value.wall, value.form === 'utc' ? zone : 'UTC');
}

/** The rule with its COUNT and UNTIL replaced (null removes the part; `{}` removes both: the rule without an end). */
export function withEnd(rule: string, end: { count?: number | null; until?: string | null }): string {
  const parts = rule.split(';').filter((p) => !p.startsWith('COUNT=') && !p.startsWith('UNTIL='));
  if (end.count != null) parts.push(`COUNT=${end.count}`);
  if (end.until != null) parts.push(`UNTIL=${end.until}`);
  return parts.join(';');
}

/** A rule's COUNT, or null when it has none. */
export function ruleCount(rule: string): number | null {
  const m = /(?:^|;)COUNT=(\d+)/.exec(rule);
  return m ? Number(m[1]) : null;
}
