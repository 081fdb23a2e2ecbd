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
