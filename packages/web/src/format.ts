/** A time for people: "Nov 23, 10:30" in the browser's locale and time zone. */
export function formatTime(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return d.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** A compact time for the status bar: "14:05" today, "Nov 22, 14:05" on another day. */
export function formatShortTime(value: string | null | undefined): string {
  if (!value) return '';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return value;
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return d.toDateString() === new Date().toDateString() ? time : `${d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })}, ${time}`;
}

/** ISO time → the value of an <input type="datetime-local"> (local time, minutes). */
export function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
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
  const at = (timeZone: string) => d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', timeZone });
  if (at(eventZone) === at(viewerZone)) return null;
  return `${at(eventZone)} ${zoneCity(eventZone)} · ${at(viewerZone)} here`;
}
