import { dateOfMidnightUtc, parseDateOnly, storedInstant } from './datetime.js';
import { type Checked, fail, itemError, ok } from './item-error.js';
import type { FieldValue, FieldValues } from './types.js';

const TIMES = ['startTime', 'endTime'] as const;

/**
 * An all-day event's time as a date: a date stays, a midnight-UTC instant (the form older clients
 * send) becomes its date, anything else is null.
 */
export function asAllDayDate(value: string): string | null {
  return parseDateOnly(value) ?? dateOfMidnightUtc(value);
}

/** True when every exdate entry names a date (a date, or a midnight-UTC instant), as an all-day series needs. */
function exdateHoldsDates(exdate: string): boolean {
  return exdate.split(',').every((entry) => asAllDayDate(entry.trim()) !== null);
}

/**
 * The rules over an event's whole state (docs/protocol.md, "Time and recurrence"), returning the
 * state as it is stored:
 * - an all-day event's start and end are floating dates (`YYYY-MM-DD`, end exclusive); a
 *   midnight-UTC instant is taken as its date, any other instant is INVALID_FIELD; a timed event's
 *   are instants (a bare date is midnight UTC);
 * - the end is not before the start;
 * - an all-day series' exdate entries are dates (INVALID_EXDATE otherwise);
 * - an override names its series and the occurrence it replaces together, and has no rrule or exdate;
 * - a series made by "this and following" names the series it continues and the occurrence of it
 *   where it begins together (splitFromUid, splitFromStart); an override names neither;
 * - an override has no moves (a series' record of its "all events" moves).
 */
export function settleEvent(fields: FieldValues): Checked<FieldValues> {
  const allDay = fields.allDay === true;
  const out: Record<string, FieldValue> = { ...fields };
  for (const name of TIMES) {
    const value = fields[name];
    if (typeof value !== 'string') continue;
    // A timed event's time is an instant; a bare date is midnight UTC, as every datetime field reads it.
    const settled = allDay ? asAllDayDate(value) : storedInstant(value);
    if (settled === null) {
      const want = allDay ? 'a date YYYY-MM-DD (the event is all-day)' : 'an ISO 8601 instant';
      return fail(itemError('INVALID_FIELD', `${name}: must be ${want}`));
    }
    out[name] = settled;
  }
  const { startTime, endTime } = out;
  if (typeof startTime === 'string' && typeof endTime === 'string') {
    // Both are in their stored form now (dates, or instants as `toISOString` writes them, years
    // 0001 to 9999), whose text order is time order.
    const before = endTime < startTime;
    if (before) return fail(itemError('INVALID_FIELD', 'endTime: must not be before startTime'));
  }
  if (allDay && typeof out.exdate === 'string' && !exdateHoldsDates(out.exdate)) {
    return fail(itemError('INVALID_EXDATE', 'invalid exdate: an all-day series removes dates (YYYY-MM-DD)'));
  }
  const isOverride = out.recurringEventUid != null;
  if (isOverride !== (out.originalStartTime != null)) {
    return fail(itemError('INVALID_FIELD', 'recurringEventUid and originalStartTime: an override names both, other events neither'));
  }
  if (isOverride && (out.rrule != null || out.exdate != null)) {
    return fail(itemError('INVALID_FIELD', 'an override (recurringEventUid) has no rrule or exdate'));
  }
  if ((out.splitFromUid != null) !== (out.splitFromStart != null)) {
    return fail(itemError('INVALID_FIELD', 'splitFromUid and splitFromStart: a series split from another names both, other events neither'));
  }
  if (isOverride && out.splitFromUid != null) {
    return fail(itemError('INVALID_FIELD', 'an override (recurringEventUid) is split from no series (splitFromUid)'));
  }
  if (isOverride && out.moves != null) {
    return fail(itemError('INVALID_FIELD', 'an override (recurringEventUid) has no moves: they are its series\' own'));
  }
  return ok(out);
}
