import { settleEvent } from './event-rules.js';
import { CREATE_DEFAULTS, FIELD_TABLES } from './field-tables.js';
import { perRecordType } from './per-record-type.js';
import { type Checked, fail, type ItemError, itemError, ok } from './item-error.js';
import type { FieldValue, FieldValues, RecordType } from './types.js';

/** Applies a patch: an absent key leaves the field unchanged, null clears it. */
export function applyPatch(fields: FieldValues, patch: FieldValues): FieldValues {
  return { ...fields, ...patch };
}

/** Each type's every field, in table order, at its create default or null: a new row's state before the patch. */
const UNSENT: Readonly<Record<RecordType, FieldValues>> = perRecordType((type) =>
  Object.fromEntries(FIELD_TABLES[type].map((spec) => [spec.name, CREATE_DEFAULTS[type][spec.name] ?? null])),
);

/**
 * The full field state of a new row: every field of the table present, taken from the patch, else
 * the create default (non-nullable optional fields), else null.
 */
export function createFields(type: RecordType, patch: FieldValues): FieldValues {
  // A copy of the type's unsent state with the patch's few fields written over it, rather than
  // every field of the table looked up in the patch and the defaults (once per created row).
  const fields: Record<string, FieldValue> = { ...UNSENT[type] };
  for (const name of Object.keys(patch)) {
    const sent = patch[name];
    if (sent !== undefined && Object.hasOwn(fields, name)) fields[name] = sent;
  }
  return fields;
}

/** Fields that must be present on create, with the error a missing one gives. */
export function checkRequiredOnCreate(type: RecordType, fields: FieldValues): ItemError | null {
  if (type === 'reminders' && fields.eventUid == null && fields.taskUid == null) {
    return itemError('PARENT_REQUIRED', 'eventUid or taskUid required for create');
  }
  for (const spec of FIELD_TABLES[type]) {
    if (!spec.requiredOnCreate || fields[spec.name] != null) continue;
    if (spec.name === 'calendarUid') return itemError('CALENDAR_REQUIRED', 'calendarUid required for create');
    return itemError('INVALID_FIELD', `${spec.name} required for create`);
  }
  return null;
}

/** A patch that changes a field the table marks immutable (set on create only) is INVALID_FIELD. */
export function checkImmutable(type: RecordType, current: FieldValues, patch: FieldValues): ItemError | null {
  for (const spec of FIELD_TABLES[type]) {
    if (spec.immutable !== true || !(spec.name in patch)) continue;
    if (patch[spec.name] !== (current[spec.name] ?? null)) {
      return itemError('INVALID_FIELD', `${spec.name}: cannot change after the record was created`);
    }
  }
  return null;
}

/**
 * The rules over the merged state of a row, returning that state as it is stored: an event's
 * times, order and override pair (`settleEvent`); a reminder has exactly one parent and one kind
 * of time; non-nullable fields are not null.
 */
export function settleFields(type: RecordType, fields: FieldValues): Checked<FieldValues> {
  let settled = fields;
  if (type === 'events') {
    const event = settleEvent(fields);
    if (!event.ok) return event;
    settled = event.value;
  }
  if (type === 'reminders') {
    if (fields.eventUid != null && fields.taskUid != null) {
      return fail(itemError('INVALID_FIELD', 'a reminder has exactly one of eventUid or taskUid, not both'));
    }
    if (fields.eventUid == null && fields.taskUid == null) {
      return fail(itemError('INVALID_FIELD', 'a reminder needs one of eventUid or taskUid'));
    }
    if (fields.minutesBefore != null && fields.remindAt != null) {
      return fail(itemError('INVALID_FIELD', 'a reminder has minutesBefore or remindAt, not both'));
    }
  }
  for (const spec of FIELD_TABLES[type]) {
    if (!spec.nullable && settled[spec.name] === null) return fail(itemError('INVALID_FIELD', `${spec.name}: may not be null`));
  }
  return ok(settled);
}
