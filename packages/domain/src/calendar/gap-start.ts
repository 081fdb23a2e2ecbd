import { expandRule } from './rule-expansion.js';
import { ruleCount, withEnd } from './until.js';
import { instantOfLocal, localMsOf } from './zone.js';

const DAY_MS = 86_400_000;
/** How far the rule from a candidate start is compared with the rule from the wanted one. */
const COMPARED = { occurrences: 64, ms: 4 * 366 * DAY_MS } as const;
/** Most candidate starts tried before giving up (each costs two short expansions). */
const MAX_TRIES = 8;
/** Periods of each frequency in a little over a year (two for YEARLY, which a leap day skips). */
const YEAR_IN_PERIODS = { DAILY: 400, WEEKLY: 57, MONTHLY: 13, YEARLY: 2 } as const;

/** Where a series that should start at a skipped wall time starts instead (`gapStart`). */
export interface GapStart {
  /** The stored start: an earlier occurrence of the rule, at the same wall time, that exists. */
  readonly start: number;
  /** Local ms of the occurrences from `start` up to the wanted one: the series' exdate entries, counted by its COUNT. */
  readonly cancelled: readonly number[];
}

/** Whether wall-clock time `local` exists in `zone` (a spring-forward change skips an hour of them). */
export function wallTimeExists(local: number, zone: string): boolean {
  return localMsOf(instantOfLocal(local, zone), zone) === local;
}

/** The same wall time a whole number of INTERVALs earlier, at least `years` back, on a day that exists; null when none does in 24 more INTERVALs. */
function seedBefore(wall: number, freq: keyof typeof YEAR_IN_PERIODS, interval: number, years: number): number | null {
  const periods = interval * Math.ceil((YEAR_IN_PERIODS[freq] * years) / interval);
  for (let k = 0; k < 24; k++) {
    const seed = periodsEarlier(wall, freq, periods + k * interval);
    if (seed !== null) return seed;
  }
  return null;
}

/** The same wall time `periods` of the rule's frequency earlier, or null when that day does not exist (31 February). */
function periodsEarlier(wall: number, freq: string, periods: number): number | null {
  if (freq === 'DAILY') return wall - periods * DAY_MS;
  if (freq === 'WEEKLY') return wall - 7 * periods * DAY_MS;
  const d = new Date(wall);
  const months = freq === 'MONTHLY' ? periods : 12 * periods;
  const earlier = new Date(wall);
  earlier.setUTCMonth(d.getUTCMonth() - months);
  return earlier.getUTCDate() === d.getUTCDate() ? earlier.getTime() : null;
}

/**
 * Where a timed series of `rule` meant to begin at wall-clock time `wall` (local ms) in `zone`
 * begins when `wall` does not exist there: 02:00 on the night clocks go from 02:00 to 03:00. A
 * start is stored as an instant, that instant reads as 03:00 (RFC 5545 §3.3.5), and a series is
 * read at its start's wall time: it would take 03:00 for every occurrence, where RFC 5545 keeps
 * the 02:00 of its DTSTART for the rest. So it begins at the last earlier occurrence of the rule
 * at that wall time that exists, with that one and any up to `wall` cancelled: the rule from
 * there has exactly the occurrences the rule from `wall` has, from `wall` on (checked over its
 * next 64 occurrences and four years), the first of them the one in the gap.
 *
 * Null when `wall` exists, for a rule that repeats within a day (its wall time is its BYHOUR and
 * BYMINUTE), and when no earlier start has the same occurrences (a DTSTART off its rule). Callers
 * add `cancelled` to the exdate and to the COUNT.
 */
export function gapStart(rule: string, wall: number, zone: string): GapStart | null {
  if (wallTimeExists(wall, zone)) return null;
  const freq = /(?:^|;)FREQ=(DAILY|WEEKLY|MONTHLY|YEARLY)(?:;|$)/.exec(rule)?.[1] as keyof typeof YEAR_IN_PERIODS | undefined;
  if (freq === undefined) return null;
  const interval = Number(/(?:^|;)INTERVAL=(\d+)/.exec(rule)?.[1] ?? '1');
  const open = withEnd(rule, {});
  const toLocal = (instant: number) => localMsOf(instant, zone);
  const from = (start: number, fromLocal: number, to: number, limit: number) => expandRule({ rule: open, start, toLocal, from: fromLocal, to, limit });
  const wanted = from(wall, wall, wall + COMPARED.ms, COMPARED.occurrences);
  // Candidates: what the rule produces before `wall`, walked from a whole number of INTERVALs back
  // (which keeps what the rule takes from its DTSTART: weekday, day of the month, phase), a year
  // back first and five years back for a rule that occurs seldom. That walk's own start need not
  // be on the rule, so it is no candidate.
  const tried = new Set<number>();
  for (const years of [1, 5]) {
    const seed = seedBefore(wall, freq, interval, years);
    if (seed === null) continue;
    const earlier = from(seed, seed + 1, wall, 10_000);
    for (let i = earlier.length - 1; i >= 0 && tried.size < MAX_TRIES; i--) {
      const start = earlier[i]!;
      if (tried.has(start) || !wallTimeExists(start, zone)) continue;
      tried.add(start);
      const got = from(start, wall, wall + COMPARED.ms, COMPARED.occurrences);
      if (got.length === wanted.length && got.every((s, k) => s === wanted[k])) return { start, cancelled: from(start, start, wall, 10_000) };
    }
  }
  // Every earlier occurrence is skipped too (a rule on the night of the change itself, such as the
  // first Sunday of October at 02:30 in Sydney): the walk's own start, off the rule but cancelled.
  for (const years of [1, 5]) {
    const seed = seedBefore(wall, freq, interval, years);
    if (seed === null || !wallTimeExists(seed, zone)) continue;
    const got = from(seed, wall, wall + COMPARED.ms, COMPARED.occurrences);
    if (got.length === wanted.length && got.every((s, k) => s === wanted[k])) return { start: seed, cancelled: from(seed, seed, wall, 10_000) };
  }
  return null;
}

/**
 * The wall time a series that begins at `start` was meant to begin at, when `start` is the
 * `gapStart` of an occurrence in a gap: `start` and every occurrence up to that one are cancelled
 * (`cancelled`), that one's wall time does not exist, and its `gapStart` is `start`. Null for any
 * other series. How an edit that has not seen a move or split to such a start learns its shift.
 */
export function gapStartOf(rule: string, start: number, zone: string, cancelled: (local: number) => boolean): number | null {
  if (!cancelled(start)) return null;
  const toLocal = (instant: number) => localMsOf(instant, zone);
  const starts = expandRule({ rule: withEnd(rule, {}), start, toLocal, from: start, to: start + COMPARED.ms, limit: 10_000 });
  for (const s of starts.slice(1)) {
    if (!wallTimeExists(s, zone)) return gapStart(rule, s, zone)?.start === start ? s : null;
    if (!cancelled(s)) return null;
  }
  return null;
}

/** `rule` with room in its COUNT for `gap`'s cancelled occurrences (unchanged without a gap or a COUNT). */
export function countingGap(rule: string, gap: GapStart | null): string {
  const count = ruleCount(rule);
  return gap === null || count === null ? rule : withEnd(rule, { count: count + gap.cancelled.length });
}

/**
 * The start, end, rule and exdate of a timed series of `rrule` meant to begin at wall time `wall`
 * in `zone` and last `length` ms, when `wall` is skipped and the series begins at its `gapStart`
 * (the cancelled occurrences before `exdate`'s own entries); null when it begins at `wall`'s own
 * instant. What an iCalendar import and a calendar app's "new event" form store.
 */
export function gapSeriesFields(rrule: string, wall: number, zone: string, length: number, exdate: string | null = null): { startTime: string; endTime: string; rrule: string; exdate: string } | null {
  const gap = gapStart(rrule, wall, zone);
  if (gap === null) return null;
  const from = instantOfLocal(gap.start, zone);
  const cancelled = gap.cancelled.map((local) => new Date(instantOfLocal(local, zone)).toISOString());
  return {
    startTime: new Date(from).toISOString(),
    endTime: new Date(from + length).toISOString(),
    rrule: countingGap(rrule, gap),
    exdate: [...cancelled, ...(exdate === null || exdate === '' ? [] : exdate.split(','))].join(','),
  };
}
