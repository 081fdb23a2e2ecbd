import type { FieldValue } from '@calsync/domain/records';

/** The fields of a calendar (name, color, timezone, isDefault). */
export type CalendarFields = Readonly<Record<string, FieldValue>>;
/** The fields of an event (calendarUid, title, startTime, endTime, rrule, exdate, ...). */
export type EventFields = Readonly<Record<string, FieldValue>>;
/** The fields of a task (title, dueAt, completed, parentTaskUid, ...). */
export type TaskFields = Readonly<Record<string, FieldValue>>;
/** The fields of a reminder (eventUid or taskUid, minutesBefore or remindAt). */
export type ReminderFields = Readonly<Record<string, FieldValue>>;
