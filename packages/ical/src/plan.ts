import { followMoves, movesOfRewrite } from '@calsync/domain/calendar';
import { asAllDayDate, parseIsoInstant, type FieldValue, type FieldValues, type RecordType } from '@calsync/domain/records';
import type { ParsedAlarm } from './alarms.js';
import type { ParsedEventObject } from './event-object.js';
import type { ObjectRecord } from './object-types.js';
import type { ParsedTaskObject } from './task-object.js';
import { alarmUidFor, overrideUidFor } from './uids.js';

/** One record write that brings the records of an object to what an iCalendar text says. */
export interface ObjectWrite {
  readonly type: RecordType;
  readonly uid: string;
  readonly op: 'create' | 'update' | 'delete';
  /** Every field for a create, the changed ones for an update, none for a delete. */
  readonly fields: FieldValues;
}

/** The records an object holds now (live ones; empty when it is new). */
export interface CurrentObject {
  readonly root: ObjectRecord | null;
  readonly overrides: readonly ObjectRecord[];
  readonly reminders: readonly ObjectRecord[];
}

/** The fields of `next` whose value differs from `current`'s. */
function changed(current: FieldValues, next: FieldValues): FieldValues {
  const out: Record<string, FieldValue> = {};
  for (const [k, v] of Object.entries(next)) if ((current[k] ?? null) !== v) out[k] = v;
  return out;
}

/** A comparable key of an occurrence start: an all-day date, or an instant's milliseconds. */
function occurrenceKey(value: unknown): string {
  const text = String(value);
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text;
  const instant = parseIsoInstant(text);
  return instant === null ? (asAllDayDate(text) ?? text) : String(instant.getTime());
}

function put(current: ObjectRecord | undefined, type: RecordType, uid: string, fields: FieldValues, out: ObjectWrite[]): void {
  if (current === undefined) {
    out.push({ type, uid, op: 'create', fields });
    return;
  }
  const diff = changed(current.fields, fields);
  if (Object.keys(diff).length > 0) out.push({ type, uid, op: 'update', fields: diff });
}

function planAlarms(
  owner: { uid: string; field: 'eventUid' | 'taskUid' },
  alarms: readonly ParsedAlarm[],
  current: readonly ObjectRecord[],
  kept: Set<string>,
  out: ObjectWrite[],
): void {
  for (const a of alarms) {
    // A key that is a reminder's uid already is that reminder (its VALARM came back with the X-WR-ALARMUID written out).
    const uid = current.some((r) => r.uid === a.key) ? a.key : alarmUidFor(owner.uid, a.key);
    kept.add(uid);
    put(
      current.find((r) => r.uid === uid),
      'reminders',
      uid,
      { ...a.fields, eventUid: owner.field === 'eventUid' ? owner.uid : null, taskUid: owner.field === 'taskUid' ? owner.uid : null },
      out,
    );
  }
}

/**
 * The writes that make the records of an event object what `parsed` says: the event (created
 * under `rootUid`, or the changed fields), each override (matched by the occurrence it replaces,
 * whatever its uid; a new one under a uid derived from the series and RECURRENCE-ID), each alarm,
 * and deletes of the overrides and alarms the text no longer has. Nothing when the text says what
 * the records hold already (an import of the same file twice writes nothing). A series written at
 * another start with the same rule is a move (`movesOfRewrite`): it is recorded in `moves`, and an
 * override whose RECURRENCE-ID moved with it stays the same record (`calendarZone` reads a
 * series without a zone of its own).
 */
export function planEventObject(current: CurrentObject, parsed: ParsedEventObject, rootUid: string, calendarUid: string, calendarZone: string | null = null): ObjectWrite[] {
  const out: ObjectWrite[] = [];
  const rootFields: Record<string, FieldValue> = { ...parsed.root.fields, calendarUid, recurringEventUid: null, originalStartTime: null };
  // A series written again at another start with the same days is an "all events" move made in
  // the app: recorded, so what devices that have not seen it edit offline follows it.
  const series = current.root === null ? null : { series: current.root, overrides: current.overrides, calendarZone };
  const moves = series === null ? undefined : movesOfRewrite(series, rootFields);
  if (moves !== undefined) rootFields.moves = moves;
  // Its overrides moved with it (their RECURRENCE-IDs shifted as the start did): each is still the
  // same record, at the key it had, written before the series so the server re-keys it in place
  // when the move arrives (followMoves), as it does for the SDK's moves.
  const followed = moves === undefined ? [] : followMoves({ ...series!, series: { uid: rootUid, fields: { ...current.root!.fields, ...rootFields } } }).overrides;
  const rootWrites: ObjectWrite[] = [];
  put(current.root ?? undefined, 'events', rootUid, rootFields, rootWrites);
  if (moves === undefined) out.push(...rootWrites);
  const keptOverrides = new Set<string>();
  const keptReminders = new Set<string>();
  const ownerAlarms = (uid: string) => current.reminders.filter((r) => r.fields.eventUid === uid);
  planAlarms({ uid: rootUid, field: 'eventUid' }, parsed.root.alarms, ownerAlarms(rootUid), keptReminders, out);
  for (const o of parsed.overrides) {
    const key = occurrenceKey(o.originalStart);
    const free = current.overrides.filter((c) => !keptOverrides.has(c.uid));
    const existing =
      free.find((c) => occurrenceKey(c.fields.originalStartTime) === key) ??
      free.find((c) => followed.some((f) => f.uid === c.uid && occurrenceKey(f.fields.originalStartTime) === key));
    const uid = existing?.uid ?? overrideUidFor(rootUid, o.originalStart);
    keptOverrides.add(uid);
    const fields = { ...o.fields, calendarUid, recurringEventUid: rootUid, originalStartTime: existing?.fields.originalStartTime ?? o.originalStart };
    put(existing, 'events', uid, fields, out);
    planAlarms({ uid, field: 'eventUid' }, o.alarms, ownerAlarms(uid), keptReminders, out);
  }
  for (const o of current.overrides) if (!keptOverrides.has(o.uid)) out.push({ type: 'events', uid: o.uid, op: 'delete', fields: {} });
  const gone = new Set(current.overrides.filter((o) => !keptOverrides.has(o.uid)).map((o) => o.uid));
  for (const r of current.reminders) {
    // The reminders of a deleted override go with it (the cascade).
    if (!keptReminders.has(r.uid) && !gone.has(String(r.fields.eventUid))) out.push({ type: 'reminders', uid: r.uid, op: 'delete', fields: {} });
  }
  // A push applies events in array order: after a move, the series goes after its overrides.
  return moves === undefined ? out : [...out.filter((w) => w.type === 'events'), ...rootWrites, ...out.filter((w) => w.type !== 'events')];
}

/** The writes that make the records of a task object what `parsed` says (the task, its alarms). */
export function planTaskObject(current: CurrentObject, parsed: ParsedTaskObject, rootUid: string): ObjectWrite[] {
  const out: ObjectWrite[] = [];
  put(current.root ?? undefined, 'tasks', rootUid, parsed.fields, out);
  const kept = new Set<string>();
  planAlarms({ uid: rootUid, field: 'taskUid' }, parsed.alarms, current.reminders, kept, out);
  for (const r of current.reminders) if (!kept.has(r.uid)) out.push({ type: 'reminders', uid: r.uid, op: 'delete', fields: {} });
  return out;
}
