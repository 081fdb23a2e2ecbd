/**
 * The one time-of-day format of the app, in the user's locale ("9:00 AM" in en-US, "09:00" in
 * de-DE): every time the screens write, FullCalendar's included, goes through it.
 */
export const TIME_FORMAT = { hour: 'numeric', minute: '2-digit' } as const satisfies Intl.DateTimeFormatOptions;

const timeOfDay = new Intl.DateTimeFormat(undefined, TIME_FORMAT);
const dayOfYear = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const dayWithYear = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', year: 'numeric' });
/** A day as a phone's day list heads it and a screen reader names its month cell: "Monday, November 9". */
export const LONG_DAY = new Intl.DateTimeFormat(undefined, { weekday: 'long', month: 'long', day: 'numeric' });

function asDate(value: string | number | Date): Date {
  return value instanceof Date ? value : new Date(value);
}

/** A day for people: "Nov 23" (the year only when it is not this year). */
function formatDay(d: Date): string {
  return (d.getFullYear() === new Date().getFullYear() ? dayOfYear : dayWithYear).format(d);
}

/** A date and time for people: "Nov 23, 9:00 AM" (the year only when it is not this year). */
export function formatTime(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const d = asDate(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return `${formatDay(d)}, ${timeOfDay.format(d)}`;
}

/**
 * When an event starts, for people: "Dec 8, 10:00 AM", or its date alone when it is all-day
 * ("Dec 8", a date read as the same day everywhere); "from …" for a series.
 */
export function formatEventStart(e: { readonly startTime: string; readonly allDay?: boolean | null; readonly rrule?: string | null }): string {
  const [y, m, d] = e.startTime.slice(0, 10).split('-').map(Number) as [number, number, number];
  const at = e.allDay ? formatDay(new Date(y, m - 1, d)) : formatTime(e.startTime);
  return e.rrule ? `from ${at}` : at;
}

/** A compact time for the status bar: "2:05 PM" today, "Nov 22, 2:05 PM" on another day. */
export function formatShortTime(value: string | null | undefined): string {
  if (!value) return '';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return value;
  return formatTimeOn(d, localDate(new Date()));
}

/** A time as a list of `day` (`YYYY-MM-DD`) shows it: "2:05 PM" on that day, "Nov 22, 2:05 PM" on another. */
export function formatTimeOn(d: Date, day: string): string {
  return localDate(d) === day ? timeOfDay.format(d) : formatTime(d);
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** `YYYY-MM-DD` of a Date in the browser's zone, the viewer's (the value of an <input type="date">). */
export function localDate(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** ISO time → the value of an <input type="datetime-local"> (local time, minutes). */
export function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${localDate(d)}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The value of an <input type="datetime-local"> → ISO time in UTC, or null when empty or invalid. */
export function fromLocalInput(value: string): string | null {
  if (!value) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** The value of an <input type="date">: `YYYY-MM-DD`. */
export const DATE_INPUT = /^\d{4}-\d{2}-\d{2}$/;

/** A date input's value or a datetime-local one (`YYYY-MM-DDTHH:MM`, seconds optional) on a clock without zone, in ms; NaN for anything else (an input being typed in gives ''). */
function wallMs(value: string): number {
  if (DATE_INPUT.test(value)) return Date.parse(`${value}T00:00:00Z`);
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

/** The short name of a zone for people: its city ("Berlin" for Europe/Berlin). */
function zoneCity(zone: string): string {
  return (zone.split('/').pop() ?? zone).replace(/_/g, ' ');
}

/**
 * "09:00 Berlin · 03:00 here" when an event keeps the time of a zone other than the viewer's;
 * null when the zones show the same time.
 */
export function zoneTimeNote(instant: string, eventZone: string | null, viewerZone: string): string | null {
  if (eventZone === null || eventZone === viewerZone) return null;
  const d = new Date(instant);
  const at = (timeZone: string) => d.toLocaleTimeString(undefined, { ...TIME_FORMAT, timeZone });
  if (at(eventZone) === at(viewerZone)) return null;
  return `${at(eventZone)} ${zoneCity(eventZone)} · ${at(viewerZone)} here`;
}
