import { FIELD_TABLES, type RecordType } from '@calsync/domain/records';
import type { SkippedPart } from './object-types.js';

/**
 * A text of an iCalendar property as the record field `field` of `type` can hold it: cut to the
 * field's length (the domain's field tables) at a code point's boundary, never inside a surrogate
 * pair (which would leave a lone surrogate no field accepts), with a note in `skipped` when cut.
 */
export function clipText(type: RecordType, field: string, value: string | null, uid: string, skipped: SkippedPart[]): string | null {
  const limit = FIELD_TABLES[type].find((f) => f.name === field)?.maxLength;
  if (value === null || limit === undefined || value.length <= limit) return value;
  skipped.push({ uid, reason: `${field} longer than ${limit} characters: the rest was left out` });
  const last = value.charCodeAt(limit - 1);
  // A high surrogate at the cut would lose its pair: cut before it.
  return value.slice(0, last >= 0xd800 && last <= 0xdbff ? limit - 1 : limit);
}
