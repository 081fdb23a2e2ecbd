import { expandOccurrences } from '../calendar/expand-occurrences.js';
import type { EventSource } from '../calendar/occurrence.js';
import { instantOfLocal } from '../calendar/zone.js';
import { instantMsOf, parseDateOnly } from '../records/datetime.js';
import type { ReminderAlert } from '../ports/change-feed.js';
import type { PlannedReminder, ReminderSources, SourceRecord } from '../ports/reminder-store.js';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** How far ahead a plan looks for a reminder's next occurrence; one with none in it is looked at again then. */
export const REMINDER_PLAN_HORIZON_MS = 366 * DAY_MS;

/** Most occurrences of one reminder considered in one window (a minutely series over a long outage is cut here). */
const MAX_OCCURRENCES_PER_WINDOW = 1000;

/** One (reminder, occurrence) that falls due: the alert every device gets, and when. */
export interface DueReminder {
  readonly at: number;
  readonly alert: Omit<ReminderAlert, 'userId'>;
}

/** A user's sources by uid, made once per `ReminderSources` (every reminder of a re-plan looks its event, task and series up). */
interface SourceIndex {
  readonly events: ReadonlyMap<string, EventSource>;
  readonly tasks: ReadonlyMap<string, SourceRecord>;
  /** Per series uid, the series and its overrides. */
  readonly families: ReadonlyMap<string, EventSource[]>;
}

const INDEXES = new WeakMap<ReminderSources, SourceIndex>();

function indexOf(sources: ReminderSources): SourceIndex {
  let index = INDEXES.get(sources);
  if (index === undefined) {
    const families = new Map<string, EventSource[]>();
    for (const e of sources.events) {
      const series = typeof e.fields.recurringEventUid === 'string' ? e.fields.recurringEventUid : e.uid;
      let family = families.get(series);
      if (family === undefined) families.set(series, (family = []));
      family.push(e);
    }
    index = { events: new Map(sources.events.map((e) => [e.uid, e])), tasks: new Map(sources.tasks.map((t) => [t.uid, t])), families };
    INDEXES.set(sources, index);
  }
  return index;
}

/** The zone an event keeps its wall clock in: its own, else its calendar's, else UTC (as the expander says). */
function zoneOf(event: EventSource, sources: ReminderSources): string {
  const own = event.fields.timezone;
  if (typeof own === 'string') return own;
  return sources.calendarZones.get(String(event.fields.calendarUid)) ?? 'UTC';
}

/** An occurrence's start as an instant: an all-day date is midnight in the event's zone. */
function startInstant(start: string, zone: string): number {
  return parseDateOnly(start) !== null ? instantOfLocal(instantMsOf(start), zone) : instantMsOf(start);
}

const minutesBefore = (reminder: SourceRecord): number => (typeof reminder.fields.minutesBefore === 'number' ? reminder.fields.minutesBefore : 0);

/**
 * The occurrences of `reminder` that fall due in (after, through] (epoch ms), earliest first, by
 * docs/protocol.md "Reminders": at `remindAt` when set; else `minutesBefore` before each occurrence
 * of its event (each occurrence of a series in the series' zone, overrides and exdates applied, by
 * the one expander) or before its task's `dueAt` (not once the task is completed). A reminder whose
 * event or task is gone is never due.
 */
export function dueOccurrences(reminder: SourceRecord, sources: ReminderSources, after: number, through: number): DueReminder[] {
  if (through <= after) return [];
  const f = reminder.fields;
  const eventUid = typeof f.eventUid === 'string' ? f.eventUid : null;
  const taskUid = typeof f.taskUid === 'string' ? f.taskUid : null;
  const index = indexOf(sources);
  const event = eventUid === null ? undefined : index.events.get(eventUid);
  const task = taskUid === null ? undefined : index.tasks.get(taskUid);
  if ((eventUid !== null && event === undefined) || (taskUid !== null && task === undefined)) return [];
  const base = { reminderUid: reminder.uid, ...(eventUid === null ? {} : { eventUid }), ...(taskUid === null ? {} : { taskUid }) };

  if (typeof f.remindAt === 'string') {
    const at = Date.parse(f.remindAt);
    if (!(at > after && at <= through)) return [];
    const title = String(event?.fields.title ?? task?.fields.title ?? 'Reminder');
    const start = event !== undefined ? String(event.fields.startTime) : typeof task?.fields.dueAt === 'string' ? task.fields.dueAt : null;
    const when = new Date(at).toISOString();
    return [{ at, alert: { kind: 'reminder', ...base, occurrenceStart: when, title, start, dueAt: when } }];
  }

  const before = minutesBefore(reminder) * MINUTE_MS;
  if (task !== undefined) {
    if (task.fields.completed === true || typeof task.fields.dueAt !== 'string') return [];
    const at = Date.parse(task.fields.dueAt) - before;
    if (!(at > after && at <= through)) return [];
    const dueAt = task.fields.dueAt;
    return [{ at, alert: { kind: 'reminder', ...base, occurrenceStart: dueAt, title: String(task.fields.title), start: dueAt, dueAt: new Date(at).toISOString() } }];
  }
  if (event === undefined) return [];

  // The event and, for a series, its overrides: the expander applies rrule, exdate and overrides.
  const family = typeof event.fields.rrule === 'string' && event.fields.recurringEventUid == null ? (index.families.get(event.uid) ?? [event]) : [event];
  const zone = zoneOf(event, sources);
  const { occurrences } = expandOccurrences(family, (uid) => sources.calendarZones.get(uid) ?? null, {
    // A day of slack either side: all-day occurrences are placed in the zone, and ones that began before the window still overlap it.
    from: new Date(after + before - DAY_MS).toISOString(),
    to: new Date(through + before + DAY_MS).toISOString(),
    tz: zone,
    limit: MAX_OCCURRENCES_PER_WINDOW,
  });
  const out: DueReminder[] = [];
  for (const o of occurrences) {
    const at = startInstant(o.start, o.timezone ?? zone) - before;
    if (!(at > after && at <= through)) continue;
    out.push({
      at,
      alert: { kind: 'reminder', ...base, eventUid: o.eventUid, occurrenceStart: o.start, title: o.title, start: o.start, dueAt: new Date(at).toISOString() },
    });
  }
  return out;
}

/** Every (reminder, occurrence) of the user due in (after, through], earliest first. */
export function dueReminders(sources: ReminderSources, after: number, through: number): DueReminder[] {
  return sources.reminders.flatMap((r) => dueOccurrences(r, sources, after, through)).sort((a, b) => a.at - b.at);
}

/**
 * The plan of the user's reminders after `after`: each reminder's next due time, or, when it has
 * none within the horizon but may still have one (a series), the horizon's end, to look again then.
 */
export function planReminders(sources: ReminderSources, after: number): PlannedReminder[] {
  const plans: PlannedReminder[] = [];
  for (const reminder of sources.reminders) {
    const next = dueOccurrences(reminder, sources, after, after + REMINDER_PLAN_HORIZON_MS)[0];
    if (next !== undefined) {
      plans.push({ reminderUid: reminder.uid, dueAt: new Date(next.at).toISOString() });
      continue;
    }
    const eventUid = reminder.fields.eventUid;
    const event = typeof eventUid === 'string' ? indexOf(sources).events.get(eventUid) : undefined;
    if (typeof reminder.fields.remindAt !== 'string' && typeof event?.fields.rrule === 'string') {
      plans.push({ reminderUid: reminder.uid, dueAt: new Date(after + REMINDER_PLAN_HORIZON_MS).toISOString() });
    }
  }
  return plans;
}
