import type { RecordRow } from './types.js';

/**
 * The calendar a write moves a root event (one that is no override) out of: the calendar of its
 * stored state when the new state names another; undefined for anything else (a new row, another
 * type, an override, an event that stays). A calendar's CalDAV readers must hear that the object
 * left (RFC 6578: a removed member), so the push plan hands this to the store as `RowWrite.leaves`.
 */
export function calendarLeft(before: RecordRow | null, after: RecordRow): string | undefined {
  if (before === null || after.type !== 'events' || after.fields.recurringEventUid != null) return undefined;
  const from = before.fields.calendarUid;
  return typeof from === 'string' && from !== after.fields.calendarUid ? from : undefined;
}
