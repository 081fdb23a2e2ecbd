import type { RecordRow } from './types.js';

/**
 * Whether a row is a live default calendar: the one rule behind "at most one live default
 * calendar per user" (the partial unique index), shared by the domain, the stores and their fakes.
 */
export function isLiveDefaultCalendar(row: Pick<RecordRow, 'type' | 'deleted' | 'fields'>): boolean {
  return row.type === 'calendars' && row.deleted === null && row.fields.isDefault === true;
}
