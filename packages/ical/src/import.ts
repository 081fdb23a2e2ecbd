import { parseCalendar, type ParsedObject } from './calendar-object.js';
import type { SkippedPart } from './object-types.js';
import { planEventObject, planTaskObject, type CurrentObject, type ObjectWrite } from './plan.js';
import { recordUidFor } from './uids.js';

/** What an import did: objects created, changed, already equal, and what it left out with why. */
export interface ImportResult {
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly skipped: readonly SkippedPart[];
}

/** Where an import writes and what is there now. */
export interface ImportTarget {
  /** The calendar the events go into. */
  readonly calendarUid: string;
  /** The zone floating times are read in (the calendar's zone, else UTC). */
  readonly floatingZone?: string;
  /** The live records of the object whose root has `rootUid` (empty when there is none). */
  current(kind: ParsedObject['kind'], rootUid: string): CurrentObject;
}

/**
 * The writes that import an iCalendar text: each VEVENT UID becomes one event (its
 * RECURRENCE-IDs its overrides, its VALARMs reminders) and each VTODO one task, under record uids
 * derived from the iCalendar UID, so importing the same text twice writes nothing the second time.
 * Nothing is dropped silently: what no record can hold is in `skipped`.
 */
export function planImport(text: string, target: ImportTarget): { writes: ObjectWrite[]; result: ImportResult } {
  const parsed = parseCalendar(text, target.floatingZone ?? 'UTC');
  const writes: ObjectWrite[] = [];
  let created = 0;
  let updated = 0;
  let unchanged = 0;
  for (const object of parsed.objects) {
    const uid = recordUidFor(object.icalUid);
    const current = target.current(object.kind, uid);
    const planned = object.kind === 'event' ? planEventObject(current, object, uid, target.calendarUid) : planTaskObject(current, object, uid);
    if (current.root === null) created += 1;
    else if (planned.length > 0) updated += 1;
    else unchanged += 1;
    writes.push(...planned);
  }
  return { writes, result: { created, updated, unchanged, skipped: parsed.skipped } };
}
