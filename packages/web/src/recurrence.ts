import type { EventInput } from '@fullcalendar/core';
import type { CalendarRecord, EventRecord } from './records.js';

/** Repeat choices the event form offers; anything else an event carries shows as "custom". */
export const REPEAT_CHOICES = [
  { value: '', label: 'Does not repeat' },
  { value: 'FREQ=DAILY', label: 'Every day' },
  { value: 'FREQ=WEEKLY', label: 'Every week' },
  { value: 'FREQ=MONTHLY', label: 'Every month' },
  { value: 'FREQ=YEARLY', label: 'Every year' },
] as const;

/** The colour an event is drawn in when its calendar has none: dark enough for white text (WCAG AA). */
export const DEFAULT_COLOR = '#1d5fa8';

/** The occurrences removed from a series (exdate, a comma-separated list of ISO start times). */
export function exdateList(exdate: string | null | undefined): string[] {
  return (exdate ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** exdate with one more occurrence removed ("delete this event" on a recurring event). */
export function withExdate(exdate: string | null | undefined, occurrenceStart: Date): string {
  const iso = occurrenceStart.toISOString();
  const list = exdateList(exdate).filter((d) => new Date(d).getTime() !== occurrenceStart.getTime());
  return [...list, iso].join(',');
}

function rruleDate(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

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
 * One stored event as FullCalendar input: a plain event, or a series that FullCalendar's rrule
 * plugin expands (DTSTART from startTime, the stored RRULE, exdate, and the event's duration).
 */
export function toCalendarInput(event: EventRecord, calendars: ReadonlyMap<string, CalendarRecord>): EventInput {
  const color = calendars.get(event.calendarUid)?.color || DEFAULT_COLOR;
  const start = new Date(event.startTime);
  const end = new Date(event.endTime);
  const base: EventInput = {
    id: event.uid,
    title: event.title,
    allDay: event.allDay ?? false,
    backgroundColor: color,
    borderColor: color,
    textColor: textColorOn(color),
    extendedProps: { uid: event.uid },
  };
  if (event.rrule) {
    return {
      ...base,
      rrule: `DTSTART:${rruleDate(start)}\nRRULE:${event.rrule}`,
      exdate: exdateList(event.exdate),
      duration: { milliseconds: Math.max(0, end.getTime() - start.getTime()) },
    };
  }
  return { ...base, start: event.startTime, end: event.endTime };
}
