import type { FieldValues } from '@calsync/domain/rules';
import type { Collection, LocalRecord } from './collection.js';
import type { CalendarFields, EventFields, ReminderFields, TaskFields } from './records.js';

/** Where `client.importIcs` puts what it reads. */
export interface ImportIcsOptions {
  /** The calendar the events go into (tasks are the user's, in no calendar). */
  readonly calendarUid: string;
}

/** What `client.importIcs` did: objects created, changed, already equal, and what it left out with why. */
export interface ImportIcsResult {
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly skipped: ReadonlyArray<{ readonly uid: string; readonly reason: string }>;
}

/** The collections an import reads and writes. */
export interface ImportCollections {
  readonly calendars: Collection<CalendarFields>;
  readonly events: Collection<EventFields>;
  readonly tasks: Collection<TaskFields>;
  readonly reminders: Collection<ReminderFields>;
}

const asRecord = (r: LocalRecord<FieldValues>) => {
  const { uid, version: _version, ...fields } = r;
  return { uid, fields: fields as FieldValues };
};

/**
 * Imports an iCalendar text into the local store as local writes (they sync like any other, and
 * work offline): events with their overrides and alarms into `calendarUid`, tasks with theirs.
 * Record uids derive from the iCalendar UIDs, so a second import of the same text changes nothing.
 * The iCalendar reader (@calsync/ical, with its zone table) loads on first use, so an app that
 * never imports does not carry it. Throws when the text is not iCalendar or the calendar is unknown.
 */
export async function importIcs(c: ImportCollections, text: string, options: ImportIcsOptions): Promise<ImportIcsResult> {
  const calendar = c.calendars.get(options.calendarUid);
  if (calendar === undefined) throw new Error(`importIcs: no calendar ${options.calendarUid}`);
  const { planImport } = await import('@calsync/ical');
  const zone = typeof calendar.timezone === 'string' ? calendar.timezone : 'UTC';
  const { writes, result } = planImport(text, {
    calendarUid: options.calendarUid,
    floatingZone: zone,
    current(kind, rootUid) {
      const root = kind === 'event' ? c.events.get(rootUid) : c.tasks.get(rootUid);
      if (root === undefined) return { root: null, overrides: [], reminders: [] };
      const overrides = kind === 'event' ? c.events.list().filter((e) => e.recurringEventUid === rootUid) : [];
      const owners = new Set([rootUid, ...overrides.map((o) => o.uid)]);
      const reminders = c.reminders.list().filter((r) => owners.has(String(kind === 'event' ? r.eventUid : r.taskUid)));
      return { root: asRecord(root), overrides: overrides.map(asRecord), reminders: reminders.map(asRecord) };
    },
  });
  for (const w of writes) {
    const collection = c[w.type] as Collection<FieldValues>;
    if (w.op === 'delete') await collection.remove(w.uid);
    else await collection.put({ ...w.fields, uid: w.uid });
  }
  return result;
}
