/**
 * ISO 8601 parsing shared by datetime fields and exdate lists. Accepts the extended form
 * (`2024-05-01T10:00:00.000Z`, offsets `+02:00`, a bare date) and the basic form used by iCalendar
 * (`20240501T100000Z`). A date-time without an offset is read as UTC so results never depend on the
 * server's time zone. Impossible calendar dates (Feb 30) are refused rather than rolled over.
 */
const EXTENDED =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const BASIC = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})?(Z|[+-]\d{4})?)?$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

interface Parts {
  y: string;
  mo: string;
  d: string;
  h: string;
  mi: string;
  s: string;
  frac: string;
  off: string;
}

function split(text: string): Parts | null {
  const e = EXTENDED.exec(text);
  if (e) {
    return { y: e[1]!, mo: e[2]!, d: e[3]!, h: e[4] ?? '00', mi: e[5] ?? '00', s: e[6] ?? '00', frac: e[7] ?? '', off: e[8] ?? 'Z' };
  }
  const b = BASIC.exec(text);
  if (b) {
    return { y: b[1]!, mo: b[2]!, d: b[3]!, h: b[4] ?? '00', mi: b[5] ?? '00', s: b[6] ?? '00', frac: '', off: b[7] ?? 'Z' };
  }
  return null;
}

/**
 * The instants we accept: years 0001 to 9999 in UTC. PostgreSQL refuses year 0000 (there is no
 * year zero: 22008), and beyond 9999 `toISOString` writes a six-digit `+010000-…` form that neither
 * PostgreSQL nor our own parser reads back; an offset can push a four-digit local time over either
 * edge, so the bound applies to the UTC instant.
 */
export const INSTANT_RANGE = {
  min: Date.parse('0001-01-01T00:00:00.000Z'),
  max: Date.parse('9999-12-31T23:59:59.999Z'),
} as const;

/** Parses an ISO 8601 instant inside `INSTANT_RANGE`; returns null when the text is not one. */
export function parseIsoInstant(text: string): Date | null {
  // Fast path for the form `Date#toISOString` writes, the one our own clients send and the server
  // stores: read by arithmetic, without the engine's date parser (an impossible date or time takes
  // the full path below, which refuses it).
  if (text.length === 24) {
    const ms = arithmeticMs(text);
    if (!Number.isNaN(ms)) return new Date(ms);
  }
  const p = split(text);
  if (!p) return null;
  const month = Number(p.mo);
  const day = Number(p.d);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(Number(p.y), month)) return null;
  if (Number(p.h) > 23 || Number(p.mi) > 59 || Number(p.s) > 59) return null;
  const off = p.off === 'Z' ? 'Z' : `${p.off.slice(0, 3)}:${p.off.slice(-2)}`;
  if (off !== 'Z' && (Number(off.slice(1, 3)) > 23 || Number(off.slice(4, 6)) > 59)) return null;
  const ms = p.frac.padEnd(3, '0').slice(0, 3);
  const date = new Date(`${p.y}-${p.mo}-${p.d}T${p.h}:${p.mi}:${p.s}.${ms}${off}`);
  const time = date.getTime();
  return Number.isNaN(time) || time < INSTANT_RANGE.min || time > INSTANT_RANGE.max ? null : date;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * A floating calendar date `YYYY-MM-DD` (an all-day event's start or end, an all-day series'
 * exdate entry), or null when the text is not one: the extended form only, years 0001 to 9999,
 * no impossible dates.
 */
export function parseDateOnly(text: string): string | null {
  const m = DATE_ONLY.exec(text);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  return text;
}

/** The date of an instant that is exactly midnight UTC (how all-day dates travelled before they were dates), else null. */
export function dateOfMidnightUtc(instant: string): string | null {
  const date = parseIsoInstant(instant);
  if (date === null || date.getTime() % 86_400_000 !== 0) return null;
  return date.toISOString().slice(0, 10);
}

const DAY_MS = 86_400_000;

/** Days from 1970-01-01 to a proleptic Gregorian date (month 1..12), for any year. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));
const pad3 = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : String(n));
const pad4 = (n: number): string => (n < 10 ? `000${n}` : n < 100 ? `00${n}` : n < 1000 ? `0${n}` : String(n));

/** `YYYY-MM-DD` of a day number (days since 1970-01-01). */
function civilText(days: number): string {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return `${pad4(year)}-${pad2(month)}-${pad2(day)}`;
}

/**
 * `new Date(ms).toISOString()` for instants in `INSTANT_RANGE`, by arithmetic: the expander writes
 * thousands of instants per query and the built-in goes through the engine's date cache for each.
 */
export function isoOfMs(ms: number): string {
  if (!(ms >= INSTANT_RANGE.min && ms <= INSTANT_RANGE.max)) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const mi = Math.floor(rest / 60_000);
  rest -= mi * 60_000;
  const s = Math.floor(rest / 1000);
  return `${civilText(days)}T${pad2(h)}:${pad2(mi)}:${pad2(s)}.${pad3(rest - s * 1000)}Z`;
}

/** `YYYY-MM-DD` of the UTC day an instant (or a floating local time) falls on. */
export function dateOfMs(ms: number): string {
  return isoOfMs(ms).slice(0, 10);
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days in `month` (1..12) of `year`, Gregorian leap years. */
function monthLength(year: number, month: number): number {
  return month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : MONTH_DAYS[month - 1]!;
}

/** The digits at `text[at..at+n)` as a number, or -1 when one is not a digit. */
function digits(text: string, at: number, n: number): number {
  let value = 0;
  for (let i = at; i < at + n; i++) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    value = value * 10 + c;
  }
  return value;
}

/**
 * The instant (ms) of a text in the stored form (`YYYY-MM-DDTHH:MM:SS.sssZ`, what `toISOString`
 * writes) or of a bare date (`YYYY-MM-DD`, midnight UTC), read by arithmetic; NaN for any other
 * text and for an impossible date or time. Four-digit years from 0001 are all inside `INSTANT_RANGE`.
 */
function arithmeticMs(text: string): number {
  const stored = text.length === 24 && text[10] === 'T' && text[13] === ':' && text[16] === ':' && text[19] === '.' && text[23] === 'Z';
  if ((stored || text.length === 10) && text[4] === '-' && text[7] === '-') {
    const y = digits(text, 0, 4);
    const mo = digits(text, 5, 2);
    const d = digits(text, 8, 2);
    const [h, mi, s, ms] = stored ? [digits(text, 11, 2), digits(text, 14, 2), digits(text, 17, 2), digits(text, 20, 3)] : [0, 0, 0, 0];
    if (y >= 1 && mo >= 1 && mo <= 12 && d >= 1 && d <= monthLength(y, mo) && h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && s >= 0 && s <= 59 && ms >= 0) {
      return daysFromCivil(y, mo, d) * DAY_MS + h * 3_600_000 + mi * 60_000 + s * 1000 + ms;
    }
  }
  return Number.NaN;
}

/**
 * The instant (ms) of an ISO 8601 text, as `parseIsoInstant` reads it, or NaN when it is not one.
 * The stored form and a bare date are read by arithmetic; any other form goes through
 * `parseIsoInstant`.
 */
export function instantMsOf(text: string): number {
  const ms = arithmeticMs(text);
  if (!Number.isNaN(ms)) return ms;
  const date = parseIsoInstant(text);
  return date === null ? Number.NaN : date.getTime();
}

/**
 * An ISO 8601 instant text in the form it is stored in, `parseIsoInstant(text)?.toISOString()`, or
 * null when it is not one. A text already in that form is checked by arithmetic and comes back as
 * it is, without a Date made or a text formatted: a pushed event's times are checked when its
 * fields are validated and again when its whole state is settled.
 */
export function storedInstant(text: string): string | null {
  if (text.length === 24 && !Number.isNaN(arithmeticMs(text))) return text;
  const ms = instantMsOf(text);
  return Number.isNaN(ms) ? null : isoOfMs(ms);
}
