import type { ObjectRows, RecordRow } from '@calsync/domain';
import type { EventObject, ObjectRecord, TaskObject } from '@calsync/ical';
import ICAL from 'ical.js';

/** One iCalendar object (a CalDAV resource, a feed's entry): a root record and what hangs from it. */
export interface IcalObject {
  readonly root: RecordRow;
  /** Overrides and reminders, tombstones included (the ETag counts them). */
  readonly overrides: readonly RecordRow[];
  readonly reminders: readonly RecordRow[];
  /** The highest version of any of its rows: it changes with every change of the object and never goes back. */
  readonly version: bigint;
}

/** The objects of a scope's rows, in the roots' order. */
export function groupObjects(rows: ObjectRows): IcalObject[] {
  const overridesOf = new Map<string, RecordRow[]>();
  for (const o of rows.overrides) {
    const key = String(o.fields.recurringEventUid);
    const list = overridesOf.get(key);
    if (list === undefined) overridesOf.set(key, [o]);
    else list.push(o);
  }
  const remindersOf = new Map<string, RecordRow[]>();
  for (const r of rows.reminders) {
    const key = String(r.fields.eventUid ?? r.fields.taskUid);
    const list = remindersOf.get(key);
    if (list === undefined) remindersOf.set(key, [r]);
    else list.push(r);
  }
  return rows.roots.map((root) => {
    const overrides = overridesOf.get(root.uid) ?? [];
    const reminders = [root, ...overrides].flatMap((owner) => remindersOf.get(owner.uid) ?? []);
    let version = root.version;
    for (const r of [...overrides, ...reminders]) if (r.version > version) version = r.version;
    return { root, overrides, reminders, version };
  });
}

/** The ETag of an object (or of a listing's member): its highest version, quoted. */
export function etagOf(object: { readonly version: bigint }): string {
  return `"${object.version}"`;
}

function asRecord(row: RecordRow): ObjectRecord {
  return { uid: row.uid, fields: row.fields, updatedAt: row.updatedAt };
}

/** The live parts of an event object, as the iCalendar mapping reads them. */
export function eventObjectOf(object: IcalObject): EventObject {
  const live = (rows: readonly RecordRow[]) => rows.filter((r) => r.deleted === null).map(asRecord);
  return { root: asRecord(object.root), overrides: live(object.overrides), reminders: live(object.reminders) };
}

/** The iCalendar UID an object of `row` is written with: the one kept from its producer, else the record uid. */
export function icalUidOf(row: RecordRow): string {
  const extras = row.fields.icalExtras;
  if (typeof extras === 'string') {
    const m = /(?:^|\r?\n)UID:([^\r\n]*)/.exec(extras);
    if (m?.[1]) return ICAL.parse.property(`UID:${m[1]}`)[3] as string;
  }
  return row.uid;
}

/** A task object: the task, its live reminders, and the iCalendar UID of its parent (RELATED-TO). */
export function taskObjectOf(object: IcalObject, tasks: ReadonlyMap<string, RecordRow>): TaskObject {
  const parentUid = object.root.fields.parentTaskUid;
  const parent = typeof parentUid === 'string' ? tasks.get(parentUid) : undefined;
  return {
    root: asRecord(object.root),
    reminders: object.reminders.filter((r) => r.deleted === null).map(asRecord),
    parentIcalUid: parent === undefined ? (typeof parentUid === 'string' ? parentUid : null) : icalUidOf(parent),
  };
}

/** The zone of a calendar (for events without one of their own), or null. */
export function calendarZoneOf(rows: ObjectRows, calendarUid: string): string | null {
  const zone = rows.calendars.find((c) => c.uid === calendarUid)?.fields.timezone;
  return typeof zone === 'string' ? zone : null;
}
