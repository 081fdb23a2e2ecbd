import * as rruleModule from 'rrule';

type RRuleClass = typeof rruleModule.RRule;
// Node loads rrule's CommonJS build, whose exports sit on `default` only (a named import fails at
// run time there); bundlers for the browser load its ES module build, which has named exports only.
const RRule: RRuleClass =
  (rruleModule as { RRule?: RRuleClass }).RRule ?? (rruleModule as unknown as { default: { RRule: RRuleClass } }).default.RRule;

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
  try {
    const options = RRule.parseString(text);
    const rule = new RRule({ ...options, dtstart: TRIAL_START });
    rule.all((_d, i) => i < 1);
    return true;
  } catch {
    return false;
  }
}
