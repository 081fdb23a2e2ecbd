import { Type, type Static } from '@sinclair/typebox';

/** `data` of a stream's `event: reminder` (docs/protocol.md, "Reminders and alerts"). */
export const reminderEventSchema = Type.Object(
  {
    reminderUid: Type.String(),
    eventUid: Type.Optional(Type.String({ description: "the event (the override's uid for a moved occurrence)" })),
    taskUid: Type.Optional(Type.String()),
    occurrenceStart: Type.String({ description: "which occurrence: its start (a task's dueAt; for remindAt, remindAt); sent once per (reminder, occurrence)" }),
    title: Type.String({ description: "the event's or task's title" }),
    start: Type.Union([Type.String(), Type.Null()], { description: "the occurrence's start (a date for all-day), or the task's dueAt" }),
    dueAt: Type.String({ description: 'when the reminder fell due (instant)' }),
  },
  { title: 'ReminderEvent' },
);

/** `data` of a stream's `event: conflict`: a push of another device of the user made a conflict. */
export const conflictEventSchema = Type.Object(
  {
    conflictId: Type.Integer(),
    entityType: Type.Union([Type.Literal('CALENDAR'), Type.Literal('EVENT'), Type.Literal('TASK'), Type.Literal('REMINDER')]),
    entityUid: Type.String(),
  },
  { title: 'ConflictEvent' },
);

/** `data` of a notification stream's `event: reminder`. */
export type ReminderEventWire = Static<typeof reminderEventSchema>;
/** `data` of a notification stream's `event: conflict`. */
export type ConflictEventWire = Static<typeof conflictEventSchema>;
