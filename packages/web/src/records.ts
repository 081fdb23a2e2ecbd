import type { CalendarFields, EventFields, LocalRecord, ReminderFields, TaskFields } from '@calsync/client';

// The records the screens read: the SDK's own types, derived from the server's wire schemas.
/** A calendar. */
export type CalendarRecord = LocalRecord<CalendarFields>;
/** An event, possibly recurring (rrule without the RRULE: prefix, exdate a comma-separated list). */
export type EventRecord = LocalRecord<EventFields>;
/** A task; a subtask names its parent in parentTaskUid. */
export type TaskRecord = LocalRecord<TaskFields>;
/** A reminder of an event or a task: minutes before its start/due time, or at a fixed time. */
export type ReminderRecord = LocalRecord<ReminderFields>;

