import type { Occurrence } from '@calsync/client';

/** Midnight at the start of `day` (`YYYY-MM-DD`) in the browser's zone. */
export function startOfDay(day: string): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d);
}

/** Midnight at the start of the day after `day` (`YYYY-MM-DD`) in the browser's zone. */
export function startOfNextDay(day: string): Date {
  const next = startOfDay(day);
  next.setDate(next.getDate() + 1);
  return next;
}

/**
 * The occurrences that fall on `day`, all-day ones first, then by start: an all-day occurrence
 * covers its dates up to its (exclusive) end date; a timed one is on every day it overlaps, and
 * one without length on the day it starts.
 */
export function occurrencesOn(occurrences: readonly Occurrence[], day: string): Occurrence[] {
  const from = startOfDay(day).getTime();
  const to = startOfNextDay(day).getTime();
  const on = occurrences.filter((o) => {
    if (o.allDay) return o.start <= day && day < o.end;
    const start = Date.parse(o.start);
    const end = Date.parse(o.end);
    return start < to && (end > from || (end === start && start >= from));
  });
  return on.sort((a, b) => (a.allDay !== b.allDay ? (a.allDay ? -1 : 1) : Date.parse(a.start) - Date.parse(b.start) || a.title.localeCompare(b.title)));
}

/** A date input's value (`YYYY-MM-DD`) or a datetime-local one (`YYYY-MM-DDTHH:MM`, seconds optional) on a clock without zone, in ms; NaN for anything else (an input being typed in gives ''). */
function wallMs(value: string): number {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return Date.parse(`${value}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value) ? Date.parse(`${value}Z`) : Number.NaN;
}

/**
 * The Ends value once Starts moved from `start` to `nextStart`: as far after the new start as it
 * was after the old one, so the event keeps its length, as calendar apps do. Counted on the wall
 * clock: a one-hour event stays 9:00 to 10:00 across a change of offset. The end stays as it was
 * while a value is incomplete, or when it was before the start.
 */
export function endAfterStartMoved(start: string, end: string, nextStart: string): string {
  const [from, to, next] = [wallMs(start), wallMs(end), wallMs(nextStart)];
  if (!Number.isFinite(from) || !Number.isFinite(to) || !Number.isFinite(next) || to < from || end.length !== nextStart.length) return end;
  return new Date(next + (to - from)).toISOString().slice(0, nextStart.length);
}
