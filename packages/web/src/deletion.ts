import { FIELD_TABLES, perRecordType, RECORD_TYPES, referenceFields } from '@calsync/domain/rules';
import { client } from './client.js';
import type { CalendarRecord, EventRecord, ReminderRecord, TaskRecord } from './records.js';
import { confirmDelete } from './components/ConfirmHost.js';
import { showToast } from './toast.js';

// Deleting with a way back. Before a delete the screens take a copy of the record and of what goes
// with it (the server deletes a calendar's events, an event's reminders and overrides, a task's
// subtasks and reminders with it); "Undo" writes the copy back through the SDK. A record still
// there gets its old fields back; a deleted one is created again under a new uid (the server keeps
// a deleted uid as a tombstone), and the references of the others follow it.

/** The records a delete takes away, by type. */
export interface Bundle {
  readonly calendars: readonly CalendarRecord[];
  readonly events: readonly EventRecord[];
  readonly tasks: readonly TaskRecord[];
  readonly reminders: readonly ReminderRecord[];
}

type Kind = keyof Bundle;

/** The fields each type refers to other records by, and the type they refer to: the domain's field tables. */
const REFERENCES: Readonly<Record<Kind, readonly (readonly [string, Kind])[]>> = perRecordType((type) => referenceFields(type).map((f) => [f.name, f.ref!] as const));
/** Fields set once at creation (the field tables' `immutable`). */
const IMMUTABLE = new Set(RECORD_TYPES.flatMap((type) => FIELD_TABLES[type].filter((f) => f.immutable === true).map((f) => f.name)));

const live = <T extends { uid: string }>(type: Kind): T[] => client[type].list() as unknown as T[];

/** A calendar and what goes with it: its events, their overrides and reminders. */
export function calendarBundle(uid: string): Bundle {
  const calendar = client.calendars.get(uid);
  const events = live<EventRecord>('events').filter((e) => e.calendarUid === uid);
  const eventUids = new Set(events.map((e) => e.uid));
  return { calendars: calendar ? [calendar] : [], events, tasks: [], reminders: live<ReminderRecord>('reminders').filter((r) => r.eventUid != null && eventUids.has(r.eventUid)) };
}

/** An event (a series with its overrides) and its reminders. */
export function eventBundle(uid: string): Bundle {
  const events = live<EventRecord>('events').filter((e) => e.uid === uid || e.recurringEventUid === uid);
  const eventUids = new Set(events.map((e) => e.uid));
  return { calendars: [], events, tasks: [], reminders: live<ReminderRecord>('reminders').filter((r) => r.eventUid != null && eventUids.has(r.eventUid)) };
}

/** A task, its subtasks (all the way down) and their reminders. */
export function taskBundle(uid: string): Bundle {
  const all = live<TaskRecord>('tasks');
  const tasks: TaskRecord[] = [];
  const queue = [uid];
  while (queue.length > 0) {
    const next = queue.shift() as string;
    const task = all.find((t) => t.uid === next);
    if (!task || tasks.includes(task)) continue;
    tasks.push(task);
    queue.push(...all.filter((t) => t.parentTaskUid === next).map((t) => t.uid));
  }
  const taskUids = new Set(tasks.map((t) => t.uid));
  return { calendars: [], events: [], tasks, reminders: live<ReminderRecord>('reminders').filter((r) => r.taskUid != null && taskUids.has(r.taskUid)) };
}

/** A reminder alone. */
export function reminderBundle(uid: string): Bundle {
  const reminder = client.reminders.get(uid);
  return { calendars: [], events: [], tasks: [], reminders: reminder ? [reminder] : [] };
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/**
 * What goes with the main record, for the confirmation: "and its 3 events", "and its 2 subtasks
 * and 1 reminder"; empty when nothing does.
 */
export function whatGoesWith(bundle: Bundle, main: Kind): string {
  const parts: string[] = [];
  if (main === 'calendars' && bundle.events.length > 0) parts.push(plural(bundle.events.length, 'event', 'events'));
  if (main === 'events') {
    const overrides = bundle.events.length - 1;
    if (overrides > 0) parts.push(plural(overrides, 'changed occurrence', 'changed occurrences'));
  }
  if (main === 'tasks' && bundle.tasks.length > 1) parts.push(plural(bundle.tasks.length - 1, 'subtask', 'subtasks'));
  if (main !== 'reminders' && bundle.reminders.length > 0) parts.push(plural(bundle.reminders.length, 'reminder', 'reminders'));
  return parts.length === 0 ? '' : `and its ${parts.join(' and ')}`;
}

/** Writes `bundle` back: old fields on the records still there, new records for the deleted ones. */
export async function restoreBundle(bundle: Bundle): Promise<void> {
  const renamed = new Map<string, string>();
  const order: Kind[] = ['calendars', 'events', 'tasks', 'reminders'];
  for (const type of order) {
    // Parents before children: a series before its overrides, a task before its subtasks.
    const records = [...(bundle[type] as readonly { uid: string; version?: unknown }[])];
    const pending = new Set(records.map((r) => r.uid));
    const ready = (r: Record<string, unknown>): boolean => REFERENCES[type].every(([field, to]) => to !== type || typeof r[field] !== 'string' || !pending.has(r[field] as string));
    while (pending.size > 0) {
      const next = records.find((r) => pending.has(r.uid) && ready(r as Record<string, unknown>)) ?? records.find((r) => pending.has(r.uid));
      if (!next) break;
      pending.delete(next.uid);
      const { uid, version: _version, ...fields } = next as Record<string, unknown> & { uid: string };
      for (const [field] of REFERENCES[type]) {
        const target = fields[field];
        if (typeof target === 'string' && renamed.has(target)) fields[field] = renamed.get(target);
      }
      const collection = client[type] as unknown as {
        get(uid: string): Record<string, unknown> | undefined;
        put(input: Record<string, unknown>): Promise<string>;
      };
      const current = collection.get(uid);
      if (current) {
        const changed = Object.fromEntries(Object.entries(fields).filter(([k, v]) => !IMMUTABLE.has(k) && current[k] !== v));
        if (Object.keys(changed).length > 0) await collection.put({ uid, ...changed });
      } else {
        renamed.set(uid, await collection.put(fields));
      }
    }
  }
}

/**
 * Runs `remove` and shows "Deleted …" with "Undo" for 10 s; Undo writes `bundle` back. `label`
 * names what went ("“Family” and its 3 events").
 */
export async function deleteWithUndo(label: string, bundle: Bundle, remove: () => Promise<void>): Promise<void> {
  await remove();
  showToast({
    message: `Deleted ${label}.`,
    durationMs: 10_000,
    action: {
      label: 'Undo',
      run: async () => {
        try {
          await restoreBundle(bundle);
          showToast({ message: `Restored ${label}.` });
        } catch {
          showToast({ message: `${label} could not be restored.`, tone: 'alert' });
        }
      },
    },
  });
}

/**
 * The whole delete as people meet it: the confirmation naming what goes ("Delete calendar
 * “Family” and its 3 events?"), then the delete and the Undo toast. Answers whether it deleted.
 */
export async function confirmAndDelete(what: { noun: string; name: string; main: Kind; bundle: Bundle; label?: string }, remove: () => Promise<void>): Promise<boolean> {
  const goes = whatGoesWith(what.bundle, what.main);
  const label = what.label ?? `${what.noun} “${what.name}”${goes ? ` ${goes}` : ''}`;
  const ok = await confirmDelete({ title: `Delete ${label}?`, detail: 'You can undo this for 10 seconds.' });
  if (!ok) return false;
  await deleteWithUndo(label, what.bundle, remove);
  return true;
}
