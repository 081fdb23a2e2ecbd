import type { FieldValues, RecordRow, RecordType } from './types.js';

/**
 * Whether these fields make a record a default calendar. A user has at most one live default; a
 * write that makes another one demotes the others (the server), so a client holds back edits of the
 * calendars about to be demoted until it has pulled their new versions.
 */
export function isDefaultCalendar(type: RecordType, fields: FieldValues): boolean {
  return type === 'calendars' && fields.isDefault === true;
}

/**
 * Whether a row is a live default calendar: the one rule behind "at most one live default
 * calendar per user" (the partial unique index), shared by the domain, the stores and their fakes.
 */
export function isLiveDefaultCalendar(row: Pick<RecordRow, 'type' | 'deleted' | 'fields'>): boolean {
  return row.deleted === null && isDefaultCalendar(row.type, row.fields);
}
