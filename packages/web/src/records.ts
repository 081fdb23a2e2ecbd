/**
 * The record fields the screens read. The SDK owns the full types; these name only what the UI
 * shows, so a screen never depends on more of a record than it uses.
 */
export interface CalendarRecord {
  readonly uid: string;
  readonly name: string;
  readonly color?: string | null;
  readonly timezone?: string | null;
  readonly isDefault?: boolean;
}

/** An event, possibly recurring (rrule without the RRULE: prefix, exdate a comma-separated list). */
export interface EventRecord {
  readonly uid: string;
  readonly calendarUid: string;
  readonly title: string;
  readonly description?: string | null;
  readonly location?: string | null;
  readonly startTime: string;
  readonly endTime: string;
  readonly allDay?: boolean;
  /** The IANA zone whose wall-clock time the event keeps. */
  readonly timezone?: string | null;
  readonly rrule?: string | null;
  readonly exdate?: string | null;
  /** Set on an override: the series it belongs to, and which occurrence it replaces. */
  readonly recurringEventUid?: string | null;
  readonly originalStartTime?: string | null;
}

/** A task; a subtask names its parent in parentTaskUid. */
export interface TaskRecord {
  readonly uid: string;
  readonly title: string;
  readonly notes?: string | null;
  readonly dueAt?: string | null;
  readonly completed?: boolean;
  readonly completedAt?: string | null;
  readonly parentTaskUid?: string | null;
}

/** A reminder of an event or a task: minutes before its start/due time, or at a fixed time. */
export interface ReminderRecord {
  readonly uid: string;
  readonly eventUid?: string | null;
  readonly taskUid?: string | null;
  readonly minutesBefore?: number | null;
  readonly remindAt?: string | null;
}

/** A record as the SDK may hand it: deleted ones (tombstones) are hidden by the screens. */
export function isLive(record: unknown): boolean {
  const deleted = (record as { deleted?: unknown } | null)?.deleted;
  return record !== null && record !== undefined && (deleted === null || deleted === undefined || deleted === false);
}
