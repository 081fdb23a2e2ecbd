import { DomainError } from '../errors.js';
import { parseIsoInstant } from '../records/datetime.js';
import { isValidTimezone } from '../records/field-validation.js';
import { OCCURRENCE_MAX_WINDOW_DAYS } from './occurrence.js';

const DAY_MS = 86_400_000;

/** A window query as a caller sends it (the route's query string, the SDK's arguments). */
export interface WindowQuery {
  readonly from: string;
  readonly to: string;
  readonly tz?: string;
}

/**
 * Checks an occurrence query's window: `from` and `to` ISO 8601 instants, `from` before `to`, at
 * most 366 days apart, `tz` an IANA zone. Throws VALIDATION_ERROR (400) naming what is wrong.
 */
export function checkOccurrenceWindow(query: WindowQuery): void {
  const from = parseIsoInstant(query.from);
  const to = parseIsoInstant(query.to);
  const problems: { path: string; message: string }[] = [];
  if (from === null) problems.push({ path: 'from', message: 'must be an ISO 8601 instant' });
  if (to === null) problems.push({ path: 'to', message: 'must be an ISO 8601 instant' });
  if (query.tz !== undefined && !isValidTimezone(query.tz)) problems.push({ path: 'tz', message: 'must be an IANA time zone' });
  if (from !== null && to !== null) {
    if (to.getTime() <= from.getTime()) problems.push({ path: 'to', message: 'must be after from' });
    else if (to.getTime() - from.getTime() > OCCURRENCE_MAX_WINDOW_DAYS * DAY_MS) {
      problems.push({ path: 'to', message: `the window is at most ${OCCURRENCE_MAX_WINDOW_DAYS} days` });
    }
  }
  if (problems.length > 0) throw new DomainError('VALIDATION_ERROR', 'Request validation failed', problems);
}

/**
 * The bounds a store compares event times with for a window (`SyncUnitOfWork.readEventWindow`):
 * ISO text a day either side, so that stored instants and all-day dates (`YYYY-MM-DD`) both
 * compare as text.
 */
export function eventWindowBounds(from: string, to: string): [string, string] {
  const lo = parseIsoInstant(from);
  const hi = parseIsoInstant(to);
  if (lo === null || hi === null) throw new RangeError('from and to must be ISO 8601 instants');
  return [new Date(lo.getTime() - DAY_MS).toISOString(), new Date(hi.getTime() + DAY_MS).toISOString()];
}
