/**
 * The one time-of-day format of the app, in the user's locale ("9:00 AM" in en-US, "09:00" in
 * de-DE): every time the screens write, FullCalendar's included, goes through it.
 */
export const TIME_FORMAT = { hour: 'numeric', minute: '2-digit' } as const satisfies Intl.DateTimeFormatOptions;

const timeOfDay = new Intl.DateTimeFormat(undefined, TIME_FORMAT);
const dayOfYear = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const dayWithYear = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', year: 'numeric' });

function asDate(value: string | number | Date): Date {
  return value instanceof Date ? value : new Date(value);
}

/** A date and time for people: "Nov 23, 9:00 AM" (the year only when it is not this year). */
export function formatTime(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const d = asDate(value);
  if (Number.isNaN(d.getTime())) return String(value);
  const day = d.getFullYear() === new Date().getFullYear() ? dayOfYear : dayWithYear;
  return `${day.format(d)}, ${timeOfDay.format(d)}`;
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
