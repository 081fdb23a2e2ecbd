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
