import { perRecordType } from './per-record-type.js';
import type { FieldSpec, RecordType } from './types.js';

/**
 * Longest `icalExtras`: the iCalendar properties of an event, task or alarm that the other fields
 * do not hold (attendees, categories, X- properties, …), kept as the text of the component so a
 * calendar app gets back what it sent (docs/protocol.md, "iCalendar and CalDAV").
 */
export const ICAL_EXTRAS_MAX = 65_536;

// The tables as written, literal types kept (see FieldTables below).
const TABLES = {
  calendars: [
    { name: 'name', column: 'name', kind: 'text', nullable: false, requiredOnCreate: true, minLength: 1, maxLength: 200 },
    { name: 'color', column: 'color', kind: 'color', nullable: true, requiredOnCreate: false },
    { name: 'timezone', column: 'timezone', kind: 'timezone', nullable: true, requiredOnCreate: false },
    { name: 'isDefault', column: 'is_default', kind: 'boolean', nullable: false, requiredOnCreate: false },
  ],
  events: [
    { name: 'calendarUid', column: 'calendar_uid', kind: 'ref', ref: 'calendars', nullable: false, requiredOnCreate: true },
    { name: 'title', column: 'title', kind: 'text', nullable: false, requiredOnCreate: true, minLength: 1, maxLength: 500 },
    { name: 'description', column: 'description', kind: 'text', nullable: true, requiredOnCreate: false, maxLength: 10000 },
    { name: 'location', column: 'location', kind: 'text', nullable: true, requiredOnCreate: false, maxLength: 1000 },
    { name: 'startTime', column: 'start_time', kind: 'eventtime', nullable: false, requiredOnCreate: true },
    { name: 'endTime', column: 'end_time', kind: 'eventtime', nullable: false, requiredOnCreate: true },
    { name: 'allDay', column: 'all_day', kind: 'boolean', nullable: false, requiredOnCreate: false },
    { name: 'timezone', column: 'timezone', kind: 'timezone', nullable: true, requiredOnCreate: false },
    { name: 'rrule', column: 'rrule', kind: 'rrule', nullable: true, requiredOnCreate: false, maxLength: 2000 },
    { name: 'exdate', column: 'exdate', kind: 'exdate', nullable: true, requiredOnCreate: false, maxLength: 20000 },
    { name: 'recurringEventUid', column: 'recurring_event_uid', kind: 'ref', ref: 'events', nullable: true, requiredOnCreate: false, immutable: true },
    { name: 'originalStartTime', column: 'original_start_time', kind: 'eventtime', nullable: true, requiredOnCreate: false, immutable: true },
    { name: 'splitFromUid', column: 'split_from_uid', kind: 'link', ref: 'events', nullable: true, requiredOnCreate: false, immutable: true },
    { name: 'splitFromStart', column: 'split_from_start', kind: 'eventtime', nullable: true, requiredOnCreate: false, immutable: true },
    { name: 'moves', column: 'moves', kind: 'moves', nullable: true, requiredOnCreate: false, maxLength: 1000 },
    { name: 'icalExtras', column: 'ical_extras', kind: 'text', nullable: true, requiredOnCreate: false, maxLength: ICAL_EXTRAS_MAX },
  ],
  tasks: [
    { name: 'title', column: 'title', kind: 'text', nullable: false, requiredOnCreate: true, minLength: 1, maxLength: 500 },
    { name: 'notes', column: 'notes', kind: 'text', nullable: true, requiredOnCreate: false, maxLength: 10000 },
    { name: 'dueAt', column: 'due_at', kind: 'datetime', nullable: true, requiredOnCreate: false },
    { name: 'completed', column: 'completed', kind: 'boolean', nullable: false, requiredOnCreate: false },
    { name: 'completedAt', column: 'completed_at', kind: 'datetime', nullable: true, requiredOnCreate: false },
    { name: 'priority', column: 'priority', kind: 'integer', nullable: true, requiredOnCreate: false, min: 0, max: 9 },
    { name: 'parentTaskUid', column: 'parent_task_uid', kind: 'ref', ref: 'tasks', nullable: true, requiredOnCreate: false },
    { name: 'icalExtras', column: 'ical_extras', kind: 'text', nullable: true, requiredOnCreate: false, maxLength: ICAL_EXTRAS_MAX },
  ],
  reminders: [
    { name: 'eventUid', column: 'event_uid', kind: 'ref', ref: 'events', nullable: true, requiredOnCreate: false },
    { name: 'taskUid', column: 'task_uid', kind: 'ref', ref: 'tasks', nullable: true, requiredOnCreate: false },
    { name: 'minutesBefore', column: 'minutes_before', kind: 'integer', nullable: true, requiredOnCreate: false, min: 0, max: 40320 },
    { name: 'remindAt', column: 'remind_at', kind: 'datetime', nullable: true, requiredOnCreate: false },
    { name: 'icalExtras', column: 'ical_extras', kind: 'text', nullable: true, requiredOnCreate: false, maxLength: ICAL_EXTRAS_MAX },
  ],
} as const satisfies Readonly<Record<RecordType, readonly FieldSpec[]>>;

/**
 * The field tables of the four record types (docs/protocol.md, "Records").
 * Validation, patching, snapshots, the SQL row mapping and the SQL row types read these tables; a new field is
 * one line here plus a migration.
 */
export const FIELD_TABLES: Readonly<Record<RecordType, readonly FieldSpec[]>> = TABLES;

/** The field tables with their literal types: the wire schemas and the SQL row types derive exact types from them. */
export type FieldTables = typeof TABLES;

/**
 * Defaults a created row gets for fields the item did not send (non-nullable fields that are not
 * required on create). Nullable fields default to null.
 */
export const CREATE_DEFAULTS: Readonly<Record<RecordType, Readonly<Record<string, boolean>>>> = {
  calendars: { isDefault: false },
  events: { allDay: false },
  tasks: { completed: false },
  reminders: {},
};

// Made once: the push reads a type's references several times for every item.
const REFERENCE_FIELDS: Readonly<Record<RecordType, readonly FieldSpec[]>> = perRecordType((type) => FIELD_TABLES[type].filter((f) => f.kind === 'ref'));

/** The fields of `type` that reference another record (the cascade and reference rules read these). */
export function referenceFields(type: RecordType): readonly FieldSpec[] {
  return REFERENCE_FIELDS[type];
}
