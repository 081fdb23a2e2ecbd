import ICAL from 'ical.js';
import type { FieldValues } from '@calsync/domain/records';
import { alarmComponent, isReminderAlarm, parseAlarms, type ParsedAlarm } from './alarms.js';
import { cloneComponent, componentFromExtras, extrasOf, setText, textOf } from './extras.js';
import { clipText } from './clip.js';
import { readTime, timeOf, timeProperty, type TimeValue } from './ical-time.js';
import type { ObjectRecord, SkippedPart } from './object-types.js';
import { recordUidFor } from './uids.js';

/*
 * A VTODO is kept whole in `icalExtras` (its parent relation and its reminders' alarms aside), the
 * properties the fields hold included: each is written back as it came while the field still means
 * what it read, and rewritten once the field changed. STATUS is written over only for
 * COMPLETED / NEEDS-ACTION.
 */

/** One iCalendar object of a task and its alarms. */
export interface TaskObject {
  readonly root: ObjectRecord;
  readonly reminders: readonly ObjectRecord[];
  /** The iCalendar UID of the parent task (RELATED-TO), when it has one. */
  readonly parentIcalUid: string | null;
}

/** A task read from iCalendar: its fields and alarms. */
export interface ParsedTaskObject {
  readonly icalUid: string;
  readonly fields: FieldValues;
  readonly alarms: readonly ParsedAlarm[];
  readonly skipped: readonly SkippedPart[];
}

/** The parent relation of a VTODO: RELATED-TO with RELTYPE PARENT (the default). */
function parentRelations(c: ICAL.Component): ICAL.Property[] {
  return c.getAllProperties('related-to').filter((p) => String(p.getParameter('reltype') ?? 'PARENT').toUpperCase() === 'PARENT');
}

/** The VTODO of a task: its kept extras with the fields written over, RELATED-TO its parent, its alarms. */
export function taskComponent(object: TaskObject): ICAL.Component {
  const f = object.root.fields;
  const c = componentFromExtras(f.icalExtras, 'vtodo');
  c.removeAllProperties('x-calsync-href');
  if (!c.hasProperty('uid')) c.addPropertyWithValue('uid', object.root.uid);
  if (!c.hasProperty('dtstamp')) c.addProperty(timeProperty('dtstamp', object.root.updatedAt ?? '1970-01-01T00:00:00.000Z', null));
  const kept = taskFieldsOf(c, 'UTC', object.root.uid, []);
  const changed = (field: string) => (kept[field] ?? null) !== (f[field] ?? null);
  if (changed('title') || !c.hasProperty('summary')) setText(c, 'summary', f.title);
  if (changed('notes')) setText(c, 'description', f.notes);
  if (changed('dueAt')) {
    c.removeAllProperties('due');
    if (typeof f.dueAt === 'string') c.addProperty(timeProperty('due', f.dueAt, null));
  }
  if (changed('completedAt')) {
    c.removeAllProperties('completed');
    if (typeof f.completedAt === 'string') c.addProperty(timeProperty('completed', f.completedAt, null));
  }
  if (changed('priority')) {
    c.removeAllProperties('priority');
    if (typeof f.priority === 'number') c.addPropertyWithValue('priority', f.priority);
  }
  const status = String(c.getFirstPropertyValue('status') ?? '').toUpperCase();
  if (f.completed === true) c.updatePropertyWithValue('status', 'COMPLETED');
  else if (status === 'COMPLETED' || status === '') c.updatePropertyWithValue('status', 'NEEDS-ACTION');
  for (const p of [...parentRelations(c)]) c.removeProperty(p);
  if (object.parentIcalUid !== null) c.addPropertyWithValue('related-to', object.parentIcalUid);
  // Kept alarms are the ones no reminder holds; the reminders' alarms are added.
  for (const r of object.reminders) c.addSubcomponent(alarmComponent(r, f.title));
  return c;
}

/** The task fields a VTODO's properties say (the parent and the kept text aside). */
function taskFieldsOf(c: ICAL.Component, floatingZone: string, icalUid: string, skipped: SkippedPart[]): FieldValues {
  const read = (t: TimeValue | null): string | null => {
    if (t === null) return null;
    if (t.problem !== null) {
      skipped.push({ uid: icalUid, reason: `a VTODO whose ${t.problem} (kept without it)` });
      return null;
    }
    const r = readTime(t.value, t.tzid, floatingZone);
    return r.allDay ? `${r.value}T00:00:00.000Z` : r.value;
  };
  const priority = c.getFirstPropertyValue('priority');
  const status = String(c.getFirstPropertyValue('status') ?? '').toUpperCase();
  const completedAt = timeOf(c, 'completed');
  return {
    title: clipText('tasks', 'title', textOf(c, 'summary') ?? '(no title)', icalUid, skipped),
    notes: clipText('tasks', 'notes', textOf(c, 'description'), icalUid, skipped),
    dueAt: read(timeOf(c, 'due')),
    completed: status === 'COMPLETED' || completedAt !== null,
    completedAt: read(completedAt),
    priority: typeof priority === 'number' && priority >= 0 && priority <= 9 ? priority : null,
  };
}

/** The task fields of a VTODO (RELATED-TO read as the parent's record uid). */
export function parseTaskObject(c: ICAL.Component, floatingZone: string): ParsedTaskObject {
  const icalUid = textOf(c, 'uid') ?? '';
  const skipped: SkippedPart[] = [];
  const parent = parentRelations(c)[0]?.getFirstValue();
  const withoutParent = cloneComponent(c);
  for (const p of parentRelations(withoutParent)) withoutParent.removeProperty(p);
  return {
    icalUid,
    fields: {
      ...taskFieldsOf(c, floatingZone, icalUid, skipped),
      parentTaskUid: typeof parent === 'string' && parent.length > 0 ? recordUidFor(parent) : null,
      icalExtras: extrasOf(withoutParent, isReminderAlarm),
    },
    alarms: parseAlarms(c, icalUid, skipped),
    skipped,
  };
}
