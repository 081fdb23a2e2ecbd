import * as rruleModule from 'rrule';
import type { RRule as RRuleInstance } from 'rrule';

type RRuleClass = typeof rruleModule.RRule;
// Node loads rrule's CommonJS build, whose exports sit on `default` only (a named import fails at
// run time there); bundlers for the browser load its ES module build, which has named exports only.
/** The rrule package's RRule class, however the runtime loaded the package: the one door to the library. */
export const RRule: RRuleClass =
  (rruleModule as { RRule?: RRuleClass }).RRule ?? (rruleModule as unknown as { default: { RRule: RRuleClass } }).default.RRule;

/** What a query under a budget gave, and whether the budget ran out (later occurrences may then be missing). */
export interface BudgetedQuery<T> {
  readonly value: T;
  readonly exhausted: boolean;
}

/**
 * Runs `query` on `rule` (made with `noCache`) with a budget of `periods` steps through the rule's
 * periods. The rrule package stops only at UNTIL or COUNT, checked on dates that pass the rule's
 * filters, or at the year 9999: a rule whose filters match nothing more
 * (`FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30`, or any rule past its last occurrence before a window's
 * end) would step day by day to 9999, seconds of CPU for one series. The package reads
 * `options.interval` twice per period (its loop's stop test and the step) and stops cleanly when
 * it reads 0, so the budget counts those reads. `bounded-rule.test.ts` pins this behaviour of the
 * installed version: an upgrade that changes it fails there.
 */
export function underBudget<T>(rule: RRuleInstance, periods: number, query: (rule: RRuleInstance) => T): BudgetedQuery<T> {
  const parsed = rule.options;
  const interval = parsed.interval;
  let left = 2 * periods + 2;
  rule.options = Object.create(parsed, {
    interval: { get: () => (--left > 0 ? interval : 0) },
  }) as typeof parsed;
  try {
    const value = query(rule);
    return { value, exhausted: left <= 0 };
  } finally {
    rule.options = parsed;
  }
}

const DAY = '(?:MO|TU|WE|TH|FR|SA|SU)';
const FREQS = new Set(['SECONDLY', 'MINUTELY', 'HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY']);

/** A comma list of signed or unsigned integers whose absolute value lies in lo..hi. */
function intList(lo: number, hi: number, signed: boolean): (v: string) => boolean {
  const re = signed ? /^[+-]?\d{1,3}$/ : /^\d{1,2}$/;
  return (v) =>
    v.split(',').every((p) => {
      if (!re.test(p)) return false;
      const n = Math.abs(Number(p));
      return n >= lo && n <= hi;
    });
}

const POSITIVE = /^[1-9]\d{0,8}$/;
const UNTIL = /^\d{8}(T\d{6}Z?)?$/;
const BYDAY_PART = new RegExp(`^([+-]?)(\\d{1,2})?(${DAY})$`);
const WEEKDAY = new RegExp(`^${DAY}$`);

/** RFC 5545 RRULE parts this service accepts, each with its value check. */
const PART_CHECKS: Readonly<Record<string, (v: string) => boolean>> = {
  FREQ: (v) => FREQS.has(v),
  UNTIL: (v) => UNTIL.test(v),
  COUNT: (v) => POSITIVE.test(v),
  INTERVAL: (v) => POSITIVE.test(v),
  BYSECOND: intList(0, 60, false),
  BYMINUTE: intList(0, 59, false),
  BYHOUR: intList(0, 23, false),
  BYDAY: (v) =>
    v.split(',').every((p) => {
      const m = BYDAY_PART.exec(p);
      if (!m) return false;
      return m[2] === undefined ? m[1] === '' : Number(m[2]) >= 1 && Number(m[2]) <= 53;
    }),
  BYMONTHDAY: intList(1, 31, true),
  BYYEARDAY: intList(1, 366, true),
  BYWEEKNO: intList(1, 53, true),
  BYMONTH: intList(1, 12, false),
  BYSETPOS: intList(1, 366, true),
  WKST: (v) => WEEKDAY.test(v),
};

/**
 * The RFC 5545 §3.3.10 rule parts that a frequency excludes (a library would ignore them, and the
 * rule would be half honoured): BYWEEKNO only with YEARLY; BYYEARDAY not with DAILY, WEEKLY or
 * MONTHLY; BYMONTHDAY not with WEEKLY; a BYDAY ordinal only with MONTHLY, or YEARLY without
 * BYWEEKNO; BYSETPOS only beside another BYxxx part.
 */
function breaksFrequencyRules(text: string): boolean {
  const parts = new Map(text.split(';').map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)] as const));
  const freq = parts.get('FREQ');
  if (parts.has('BYWEEKNO') && freq !== 'YEARLY') return true;
  if (parts.has('BYYEARDAY') && (freq === 'DAILY' || freq === 'WEEKLY' || freq === 'MONTHLY')) return true;
  if (parts.has('BYMONTHDAY') && freq === 'WEEKLY') return true;
  const ordinal = (parts.get('BYDAY') ?? '').split(',').some((d) => /\d/.test(d));
  if (ordinal && !(freq === 'MONTHLY' || (freq === 'YEARLY' && !parts.has('BYWEEKNO')))) return true;
  if (parts.has('BYSETPOS') && ![...parts.keys()].some((k) => k.startsWith('BY') && k !== 'BYSETPOS')) return true;
  return false;
}

/** Periods a trial expansion may step through before its first occurrence (a daily rule: 11 years). */
const TRIAL_PERIODS = 4000;

/** A fixed start for trial expansion, so validation never reads the wall clock. */
const TRIAL_START = new Date(Date.UTC(2000, 0, 1));

/**
 * True when `text` is an RFC 5545 RRULE value (no `RRULE:` prefix) this service accepts. The rrule
 * package accepts nonsense silently, so the text is checked strictly first (known parts, value
 * ranges, FREQ required, no duplicates, not COUNT with UNTIL) and only then built and expanded.
 */
export function isValidRrule(text: string): boolean {
  if (text.length === 0) return false;
  const seen = new Set<string>();
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return false;
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    const check = PART_CHECKS[key];
    if (check === undefined || seen.has(key) || !check(value)) return false;
    seen.add(key);
  }
  if (!seen.has('FREQ') || (seen.has('COUNT') && seen.has('UNTIL'))) return false;
  if (breaksFrequencyRules(text)) return false;
  try {
    // A rule that produces nothing within TRIAL_PERIODS of its periods is refused: it never occurs
    // (FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30), or too seldom to be a calendar's repeat rule.
    const options = RRule.parseString(text);
    const rule = new RRule({ ...options, dtstart: TRIAL_START }, true);
    return underBudget(rule, TRIAL_PERIODS, (r) => r.all((_d, i) => i < 1)).value.length === 1;
  } catch {
    return false;
  }
}
