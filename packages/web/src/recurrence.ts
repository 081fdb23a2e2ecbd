import type { Occurrence } from '@calsync/client';
import { dateIn, lastDayOfUntil, untilOfLastDay } from '@calsync/domain/rules';
import type { EventInput } from '@fullcalendar/core';

/** The frequencies the repeat editor offers ('' is "Does not repeat"). */
export const FREQUENCIES = [
  { value: '', label: 'Does not repeat' },
  { value: 'DAILY', label: 'Daily' },
  { value: 'WEEKLY', label: 'Weekly' },
  { value: 'MONTHLY', label: 'Monthly' },
  { value: 'YEARLY', label: 'Yearly' },
] as const;

/** A frequency of the repeat editor. */
export type Frequency = (typeof FREQUENCIES)[number]['value'];

/** Weekdays as RRULE names them, Monday first, with the labels of the weekday checkboxes. */
export const WEEKDAYS = [
  { code: 'MO', label: 'Mon' },
  { code: 'TU', label: 'Tue' },
  { code: 'WE', label: 'Wed' },
  { code: 'TH', label: 'Thu' },
  { code: 'FR', label: 'Fri' },
  { code: 'SA', label: 'Sat' },
  { code: 'SU', label: 'Sun' },
] as const;

/**
 * The RRULE weekday code of a start: a `YYYY-MM-DD` date as it stands, an instant on its date in the
 * event's `zone` (where its rule is evaluated; the domain's zone arithmetic). Null when the start is
 * not a valid time.
 */
export function weekdayOf(start: string | null | undefined, zone: string): string | null {
  if (!start) return null;
  const instant = /^\d{4}-\d{2}-\d{2}$/.test(start) ? null : Date.parse(start);
  const date = instant === null ? start : Number.isNaN(instant) ? null : dateIn(instant, zone);
  const day = date === null ? NaN : new Date(`${date}T00:00:00Z`).getUTCDay();
  return Number.isNaN(day) ? null : WEEKDAYS[(day + 6) % 7]!.code;
}

/**
 * The days a weekly rule falls on, as the editor shows them: its BYDAY, or without one the start's
 * weekday (`startDay`), which RFC 5545 takes the rule's missing day from.
 */
export function weeklyDays(repeat: Repeat, startDay: string | null): readonly string[] {
  if (repeat.days.length > 0) return repeat.days;
  return startDay === null ? [] : [startDay];
}

/** How a series ends: never, after the "End date", or after a number of occurrences. */
export type RepeatEnd = 'never' | 'on' | 'after';

/**
 * What the repeat editor holds. A rule with parts the editor does not show (BYSETPOS, a list of
 * month days, …) stays as `custom` text and is written back unchanged unless the user picks
 * another frequency.
 */
export interface Repeat {
  readonly freq: Frequency;
  readonly interval: number;
  /** Weekday codes of a weekly rule. */
  readonly days: readonly string[];
  readonly ends: RepeatEnd;
  /** `YYYY-MM-DD`, the last day the series may occur on (ends 'on'). */
  readonly until: string;
  /** Occurrences in all (ends 'after'). */
  readonly count: number;
  /** The rule's WKST, kept as written (it moves a weekly rule with an INTERVAL); null without one. */
  readonly wkst: string | null;
  readonly custom: string | null;
}

const PLAIN = /^(FREQ|INTERVAL|BYDAY|UNTIL|COUNT|WKST)$/;

/**
 * The editor's view of an event's rrule (`null`: does not repeat). The "End date" is the last day
 * the rule's UNTIL lets the series occur on in its `zone` (a timed series' UNTIL is in UTC).
 */
export function parseRepeat(rrule: string | null | undefined, zone: string): Repeat {
  const none: Repeat = { freq: '', interval: 1, days: [], ends: 'never', until: '', count: 10, wkst: null, custom: null };
  if (!rrule) return none;
  const parts = new Map(rrule.split(';').map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)] as const));
  const freq = parts.get('FREQ') ?? '';
  const days = (parts.get('BYDAY') ?? '').split(',').filter(Boolean);
  const known = FREQUENCIES.some((f) => f.value === freq && f.value !== '');
  const untilPart = parts.get('UNTIL');
  const until = untilPart === undefined ? null : lastDayOfUntil(untilPart, zone);
  const plain =
    known &&
    [...parts.keys()].every((k) => PLAIN.test(k)) &&
    (freq === 'WEEKLY' || days.length === 0) &&
    days.every((d) => /^[A-Z]{2}$/.test(d)) &&
    (untilPart === undefined || until !== null);
  return {
    freq: known ? (freq as Frequency) : '',
    interval: Number(parts.get('INTERVAL') ?? 1),
    days,
    ends: untilPart !== undefined ? 'on' : parts.has('COUNT') ? 'after' : 'never',
    until: until ?? '',
    count: Number(parts.get('COUNT') ?? 10),
    wkst: parts.get('WKST') ?? null,
    custom: plain ? null : rrule,
  };
}

/**
 * The RRULE of the editor's state, or null for "Does not repeat". The "End date" is inclusive: a
 * timed series' UNTIL is the end of that day in the event's zone, written in UTC as RFC 5545 asks.
 */
export function buildRrule(repeat: Repeat, options: { allDay: boolean; zone: string }): string | null {
  if (repeat.custom !== null) return repeat.custom;
  if (repeat.freq === '') return null;
  const parts = [`FREQ=${repeat.freq}`];
  if (repeat.interval > 1) parts.push(`INTERVAL=${Math.floor(repeat.interval)}`);
  if (repeat.freq === 'WEEKLY' && repeat.days.length > 0) {
    parts.push(`BYDAY=${WEEKDAYS.filter((d) => repeat.days.includes(d.code)).map((d) => d.code).join(',')}`);
  }
  if (repeat.ends === 'after') parts.push(`COUNT=${Math.max(1, Math.floor(repeat.count))}`);
  if (repeat.ends === 'on' && repeat.until) {
    parts.push(`UNTIL=${untilOfLastDay(repeat.until, options)}`);
  }
  if (repeat.wkst !== null) parts.push(`WKST=${repeat.wkst}`);
  return parts.join(';');
}

/** The browser's IANA time zone (the zone new events keep their wall-clock time in). */
export function viewerZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** The colour an event is drawn in when its calendar has none: dark enough for white text (WCAG AA). */
export const DEFAULT_COLOR = '#1d5fa8';

/** Black or white, whichever reads better on `background` (#RRGGBB). */
export function textColorOn(background: string): string {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(background);
  if (!m) return '#ffffff';
  const [r, g, b] = [m[1], m[2], m[3]].map((h) => {
    const c = parseInt(h as string, 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  // Contrast with white is 1.05 / (L + 0.05); with black (L + 0.05) / 0.05: pick the larger.
  return 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.05 ? '#ffffff' : '#000000';
}

/**
 * One occurrence, as the SDK's expander gives it, as FullCalendar input: instants (FullCalendar
 * shows them in the browser's zone) or floating dates for all-day. FullCalendar never expands a
 * rule itself.
 */
export function toCalendarInput(occurrence: Occurrence, color: string | null | undefined): EventInput {
  const fill = color || DEFAULT_COLOR;
  return {
    id: `${occurrence.eventUid}|${occurrence.originalStart ?? ''}`,
    title: occurrence.title,
    start: occurrence.start,
    end: occurrence.end,
    allDay: occurrence.allDay,
    backgroundColor: fill,
    borderColor: fill,
    textColor: textColorOn(fill),
    extendedProps: { occurrence },
  };
}

/**
 * A repeat rule for people: "Weekly on Mon, Wed", "Every 2 days, 10 times", "Daily until 2026-12-10"
 * (the last day in the event's `zone`), or the rule itself when the editor cannot show it.
 */
export function describeRrule(rrule: string, zone: string): string {
  const r = parseRepeat(rrule, zone);
  if (r.custom !== null || r.freq === '') return rrule;
  const name = FREQUENCIES.find((f) => f.value === r.freq)?.label ?? r.freq;
  const unit = { DAILY: 'days', WEEKLY: 'weeks', MONTHLY: 'months', YEARLY: 'years' }[r.freq];
  let text = r.interval > 1 ? `Every ${r.interval} ${unit}` : name;
  if (r.days.length > 0) text += ` on ${WEEKDAYS.filter((d) => r.days.includes(d.code)).map((d) => d.label).join(', ')}`;
  if (r.ends === 'after') text += `, ${r.count} times`;
  if (r.ends === 'on') text += ` until ${r.until}`;
  return text;
}
