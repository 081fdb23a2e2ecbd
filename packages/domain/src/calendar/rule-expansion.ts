import type { Options } from 'rrule';
import { RRule, underBudget } from '../records/rrule.js';
import { parseUntil, untilLocalOf, wallTime, type UntilValue } from './until.js';

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
// rrule's Frequency values (a const enum the package's types declare).
const YEARLY = 0;
const MONTHLY = 1;
const WEEKLY = 2;
const DAILY = 3;
const HOURLY = 4;
const MINUTELY = 5;

/** Milliseconds of one period of each frequency: at least (for the walk's budget) and at most (for the reach past a window). */
const PERIOD_MIN_MS = [365 * DAY_MS, 28 * DAY_MS, WEEK_MS, DAY_MS, 3_600_000, 60_000, 1000];
const PERIOD_MAX_MS = [366 * DAY_MS, 31 * DAY_MS, WEEK_MS, DAY_MS, 3_600_000, 60_000, 1000];

/** The end of the rrule package's calendar (it stops at the year 9999). */
const LAST_INSTANT = Date.UTC(9999, 11, 31);

/** Most periods one series may walk through in one expansion, whatever its window (a sub-daily rule over a year). */
export const MAX_PERIODS_PER_SERIES = 100_000;

/** A rule's parts as rrule reads them, without UNTIL (read here: it depends on the series' zone). */
interface ParsedRule {
  readonly options: Partial<Options>;
  /** UNTIL read, or null without one. */
  readonly until: UntilValue | null;
}

const PARSED = new Map<string, ParsedRule>();

function parseRule(rule: string): ParsedRule {
  let parsed = PARSED.get(rule);
  if (parsed === undefined) {
    const parts = rule.split(';');
    const untilPart = parts.find((p) => p.startsWith('UNTIL='));
    const options = RRule.parseString(parts.filter((p) => p !== untilPart).join(';'));
    const until = untilPart === undefined ? null : parseUntil(untilPart.slice('UNTIL='.length));
    if (until === null && untilPart !== undefined) throw new Error(`unreadable UNTIL ${untilPart.slice('UNTIL='.length)}`);
    parsed = { options, until };
    if (PARSED.size > 10_000) PARSED.clear();
    PARSED.set(rule, parsed);
  }
  return parsed;
}

/** rrule's weekday number (MO = 0 … SU = 6) of a local time. */
function weekdayOf(local: Date): number {
  return (local.getUTCDay() + 6) % 7;
}

function wkstOf(options: Partial<Options>): number {
  return typeof options.wkst === 'number' ? options.wkst : (options.wkst?.weekday ?? 0);
}

/**
 * The rule with the parts RFC 5545 takes from DTSTART when the rule leaves them out (the day in
 * the month or week, the month, the time of day) written into it, so that its DTSTART can move to
 * another period's start without changing a single occurrence of the periods after it.
 */
function withImplicitParts(options: Partial<Options>, dtstart: Date): Partial<Options> {
  const freq = options.freq ?? YEARLY;
  const explicit: Partial<Options> = { ...options };
  const dayRule = options.byweekno != null || options.byyearday != null || options.bymonthday != null || options.byweekday != null;
  if (!dayRule) {
    if (freq === YEARLY) {
      explicit.bymonth = options.bymonth ?? dtstart.getUTCMonth() + 1;
      explicit.bymonthday = dtstart.getUTCDate();
    } else if (freq === MONTHLY) {
      explicit.bymonthday = dtstart.getUTCDate();
    } else if (freq === WEEKLY) {
      explicit.byweekday = weekdayOf(dtstart);
    }
  }
  if (freq <= DAILY) explicit.byhour = options.byhour ?? dtstart.getUTCHours();
  if (freq <= HOURLY) explicit.byminute = options.byminute ?? dtstart.getUTCMinutes();
  if (freq <= MINUTELY) explicit.bysecond = options.bysecond ?? dtstart.getUTCSeconds();
  return explicit;
}

/**
 * The start (local ms) of the period `k` whole periods after the one holding `dtstart`; weeks
 * begin on the rule's WKST. `k` may be 0.
 */
function periodStart(options: Partial<Options>, dtstart: Date, k: number): number {
  const freq = options.freq ?? YEARLY;
  const y0 = dtstart.getUTCFullYear();
  const m0 = dtstart.getUTCMonth();
  const day0 = wallTime(y0, m0, dtstart.getUTCDate());
  switch (freq) {
    case YEARLY:
      return wallTime(y0 + k, 0, 1);
    case MONTHLY:
      return wallTime(y0 + Math.floor((m0 + k) / 12), (m0 + k) % 12, 1);
    case WEEKLY:
      return day0 - ((weekdayOf(dtstart) - wkstOf(options) + 7) % 7) * DAY_MS + k * WEEK_MS;
    case DAILY:
      return day0 + k * DAY_MS;
    default: {
      const unit = freq === HOURLY ? 3_600_000 : freq === MINUTELY ? 60_000 : 1000;
      return Math.floor(dtstart.getTime() / unit) * unit + k * unit;
    }
  }
}

/** Whole periods (in steps of the rule's INTERVAL, one step held back) between `dtstart`'s period and the one holding `target`. */
function wholeSteps(options: Partial<Options>, dtstart: Date, target: number): number {
  const freq = options.freq ?? YEARLY;
  const interval = options.interval ?? 1;
  const t = new Date(target);
  let periods: number;
  switch (freq) {
    case YEARLY:
      periods = t.getUTCFullYear() - dtstart.getUTCFullYear();
      break;
    case MONTHLY:
      periods = (t.getUTCFullYear() - dtstart.getUTCFullYear()) * 12 + (t.getUTCMonth() - dtstart.getUTCMonth());
      break;
    default: {
      const unit = PERIOD_MIN_MS[freq] ?? DAY_MS;
      periods = Math.floor((target - periodStart(options, dtstart, 0)) / unit);
    }
  }
  return Math.floor(periods / interval) * interval - interval;
}

/**
 * The starts (local ms) of every period's set under `options` (no BYSETPOS, COUNT or UNTIL) from
 * `dtstart` to `to`, with a budget of periods.
 */
function walk(options: Partial<Options>, dtstart: number, to: number, limit: number): Date[] {
  const rrule = new RRule({ ...options, dtstart: new Date(dtstart) }, true);
  const periods = Math.ceil(Math.max(0, to - dtstart) / (PERIOD_MIN_MS[options.freq ?? YEARLY] ?? DAY_MS) / (options.interval ?? 1));
  const budget = Math.min(MAX_PERIODS_PER_SERIES, periods + 4);
  return underBudget(rrule, budget, (r) => r.between(new Date(dtstart), new Date(to), true, (_d, i) => i < limit)).value;
}

/**
 * The rule as walks whose union is its occurrences. BYDAY lists a union of days, but the rrule
 * package (after python-dateutil) requires a day to match both its plain weekdays and its
 * ordinal ones when a monthly or yearly BYDAY mixes them (`BYDAY=1MO,WE` gives nothing, not the
 * first Monday and every Wednesday): such a rule is walked once per kind.
 */
function unionParts(options: Partial<Options>): Partial<Options>[] {
  const days = options.byweekday;
  if (!Array.isArray(days) || (options.freq !== MONTHLY && options.freq !== YEARLY)) return [options];
  const ordinal = days.filter((d) => typeof d === 'object' && d !== null && 'n' in d && d.n != null && d.n !== 0);
  if (ordinal.length === 0 || ordinal.length === days.length) return [options];
  const plain = days.filter((d) => !ordinal.includes(d));
  return [{ ...options, byweekday: plain }, { ...options, byweekday: ordinal }];
}

/** The key of the period a local time belongs to (its year, month, WKST week, day, hour, minute or second). */
function periodKey(options: Partial<Options>, local: number): number {
  const d = new Date(local);
  switch (options.freq ?? YEARLY) {
    case YEARLY:
      return d.getUTCFullYear();
    case MONTHLY:
      return d.getUTCFullYear() * 12 + d.getUTCMonth();
    case WEEKLY:
      return periodStart(options, d, 0);
    case DAILY:
      return Math.floor(local / DAY_MS);
    default:
      return periodStart(options, d, 0);
  }
}

/**
 * BYSETPOS applied to a walk's sets: per period, the n-th (from the start, or from the end when
 * negative) of the period's times; a position past the set's size picks nothing. The rrule
 * package picks the set's first time for a negative position past its size, so the walk runs
 * without BYSETPOS and the positions are applied here.
 */
function selectPositions(options: Partial<Options>, positions: readonly number[], times: readonly number[]): number[] {
  const picked = new Set<number>();
  let i = 0;
  while (i < times.length) {
    const key = periodKey(options, times[i]!);
    let j = i;
    while (j < times.length && periodKey(options, times[j]!) === key) j++;
    const size = j - i;
    for (const p of positions) {
      const index = p > 0 ? p - 1 : size + p;
      if (index >= 0 && index < size) picked.add(times[i + index]!);
    }
    i = j;
  }
  return [...picked].sort((a, b) => a - b);
}

/** What `expandRule` needs to know of a series. */
export interface RuleExpansion {
  /** The RRULE value (validated by `isValidRrule`). */
  readonly rule: string;
  /** DTSTART as local ms (floating): the first occurrence. */
  readonly start: number;
  /** Local ms of a UTC instant in the series' zone (for UTC UNTIL values). */
  readonly toLocal: (instant: number) => number;
  /** Occurrences starting before this local ms are not wanted. */
  readonly from: number;
  /** Occurrences starting at or after this local ms are not wanted. */
  readonly to: number;
  /** At most this many starts are returned. */
  readonly limit: number;
}

/**
 * The starts (local ms, ascending) of a series' occurrences in [from, to), by RFC 5545: the rule
 * arithmetic is the rrule package's, expanded on floating wall-clock time; DTSTART is always the
 * first occurrence and counts towards COUNT (§3.8.5.3), even when the rule would not produce it;
 * an instant occurs once. Where the rule has no COUNT, the walk starts a whole number of INTERVALs
 * before the window instead of at DTSTART, so a series that began years ago costs what its
 * window holds. The walk never passes the window's end (plus one period for BYSETPOS): a rule
 * that produces nothing more stops there.
 */
export function expandRule(input: RuleExpansion): number[] {
  const parsed = parseRule(input.rule);
  const untilMs = parsed.until === null ? null : untilLocalOf(parsed.until, input.toLocal);
  const series = seriesKey(input.rule, input.start, untilMs);
  const starts: number[] = [];
  const take = (times: readonly number[]): void => {
    for (const t of times) if (t >= input.from && t < input.to && starts.length < input.limit) starts.push(t);
  };
  if (parsed.options.count != null) {
    take(countSet(parsed, series, untilMs, input.start));
    return starts;
  }
  // Otherwise a calendar year of wall-clock time at a time, each kept for the next query.
  const first = new Date(input.from).getUTCFullYear();
  const last = new Date(input.to - 1).getUTCFullYear();
  for (let year = first; year <= last && starts.length < input.limit; year++) {
    const from = Date.UTC(year, 0, 1);
    const to = Date.UTC(year + 1, 0, 1);
    take(remembered(`y\u0000${series}\u0000${year}`, () => startsBetween(parsed, untilMs, input.start, from, to)));
  }
  return starts;
}

/**
 * Whether the rule has an occurrence starting at local ms `at` (as `expandRule` would list it), at
 * the cost of the period around `at` alone: a COUNT rule's set is read once and searched, any other
 * rule is walked over `at` only, never a whole year (a rule that repeats every second would make
 * that 31 million starts).
 */
export function occursAt(input: Omit<RuleExpansion, 'from' | 'to' | 'limit'>, at: number): boolean {
  const parsed = parseRule(input.rule);
  const untilMs = parsed.until === null ? null : untilLocalOf(parsed.until, input.toLocal);
  if (parsed.options.count == null) return startsBetween(parsed, untilMs, input.start, at, at + 1).length > 0;
  const all = countSet(parsed, seriesKey(input.rule, input.start, untilMs), untilMs, input.start);
  let lo = 0;
  let hi = all.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (all[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return all[lo] === at;
}

/** The key of a series' expansions: its rule, start and UNTIL (as local ms in its zone). */
function seriesKey(rule: string, start: number, untilMs: number | null): string {
  return `${rule}\u0000${start}\u0000${untilMs ?? ''}`;
}

/** A COUNT rule's whole set (COUNT counts from DTSTART), expanded once per `series` key (rule, start, UNTIL). */
function countSet(parsed: ParsedRule, series: string, untilMs: number | null, start: number): readonly number[] {
  return remembered(`c\u0000${series}`, () => startsBetween(parsed, untilMs, start, start, LAST_INSTANT));
}

/** Expanded spans (a series' year, or a COUNT series whole) by rule, start, UNTIL and span: computed once, the oldest dropped past the bound. */
const SPANS = new Map<string, readonly number[]>();
/** Most spans kept (a daily series' year is 365 numbers: the bound is some tens of megabytes). */
const MAX_SPANS = 20_000;

function remembered(key: string, compute: () => number[]): readonly number[] {
  const hit = SPANS.get(key);
  if (hit !== undefined) {
    SPANS.delete(key);
    SPANS.set(key, hit);
    return hit;
  }
  const value = compute();
  SPANS.set(key, value);
  if (SPANS.size > MAX_SPANS) SPANS.delete(SPANS.keys().next().value as string);
  return value;
}

/** Every start of the rule in [from, to) (local ms), DTSTART `start` first, COUNT and UNTIL applied. */
function startsBetween(parsed: ParsedRule, untilMs: number | null, start: number, from: number, to: number): number[] {
  const { options } = parsed;
  const freq = options.freq ?? YEARLY;
  const count = options.count ?? null;
  const positions = options.bysetpos == null ? null : ([] as number[]).concat(options.bysetpos);
  const input = { start, from, to };
  const dtstart = new Date(start);
  const explicit = withImplicitParts({ ...options, count: null, until: null, bysetpos: null }, dtstart);

  // Where the walk begins: a period start some INTERVALs before the window (no COUNT), or DTSTART
  // itself; BYSETPOS needs whole periods, so it begins at DTSTART's period (a WEEKLY rule's first
  // week counts from DTSTART, as python-dateutil and the rrule package read it).
  const steps = count === null ? wholeSteps(explicit, dtstart, input.from) : 0;
  const walkFrom =
    steps > 0 ? periodStart(explicit, dtstart, steps) : positions !== null && freq !== WEEKLY ? periodStart(explicit, dtstart, 0) : input.start;
  const reach = positions === null ? input.to : input.to + (PERIOD_MAX_MS[freq] ?? DAY_MS);
  const walkTo = untilMs === null ? reach : Math.min(reach, untilMs + (positions === null ? 1 : (PERIOD_MAX_MS[freq] ?? DAY_MS)));
  const cap = count === null ? MAX_PERIODS_PER_SERIES : count + 1;
  const walks = unionParts(explicit).map((part) => walk(part, walkFrom, walkTo, positions === null ? cap : MAX_PERIODS_PER_SERIES));
  let times = walks.length === 1 ? walks[0]!.map((d) => d.getTime()) : [...new Set(walks.flat().map((d) => d.getTime()))].sort((a, b) => a - b);
  if (positions !== null) times = selectPositions(explicit, positions, times);
  times = times.filter((t) => t >= input.start && (untilMs === null || t <= untilMs));

  // DTSTART is the first occurrence; under COUNT it is one of the COUNT.
  if (times[0] !== input.start && (untilMs === null || input.start <= untilMs)) {
    times.unshift(input.start);
  }
  if (count !== null) times = times.slice(0, count);
  return times.filter((t) => t >= input.from && t < input.to);
}
