import type { FieldValues } from '@calsync/domain/records';

/** A record as the iCalendar mapping reads it: its uid, its fields, and when it last changed (DTSTAMP when none was kept). */
export interface ObjectRecord {
  readonly uid: string;
  readonly fields: FieldValues;
  readonly updatedAt?: string;
}

/** Something of an iCalendar text that no record holds, and why (the import's and CalDAV's `skipped`). */
export interface SkippedPart {
  /** The iCalendar UID it belongs to ('' when it has none). */
  readonly uid: string;
  readonly reason: string;
}
