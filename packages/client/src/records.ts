import type { RecordFields } from '@calsync/wire';

// The fields of each record type, derived from the server's wire schemas (which the domain's field
// tables generate): `title` is a string, `rrule` a string or null, and a misspelt or mistyped field
// does not compile.

/** The fields of a calendar (name, color, timezone, isDefault). */
export type CalendarFields = RecordFields<'calendars'>;
/** The fields of an event (calendarUid, title, startTime, endTime, rrule, exdate, ...). */
export type EventFields = RecordFields<'events'>;
/** The fields of a task (title, dueAt, completed, parentTaskUid, ...). */
export type TaskFields = RecordFields<'tasks'>;
/** The fields of a reminder (eventUid or taskUid, minutesBefore or remindAt). */
export type ReminderFields = RecordFields<'reminders'>;
/** The fields of each record type by its collection name. */
export interface FieldsOf {
  readonly calendars: CalendarFields;
  readonly events: EventFields;
  readonly tasks: TaskFields;
  readonly reminders: ReminderFields;
}
