import { asAllDayDate } from '../records/event-rules.js';
import { parseIsoInstant } from '../records/datetime.js';
import { listEntries } from '../records/field-validation.js';
import type { FieldValue, FieldValues } from '../records/types.js';
import type { EventSource } from './occurrence.js';
import { expandRule, occursAt } from './rule-expansion.js';
import { ruleCount, untilLocalOf, untilOf, untilText, utcUntil, withEnd, type UntilValue } from './until.js';
import { countingGap, gapStart, gapStartOf, type GapStart } from './gap-start.js';
import { instantOfLocal, localMsOf } from './zone.js';

const DAY_MS = 86_400_000;

/** Which occurrences an edit or removal of one occurrence covers (the "this event / this and following / all events" choice). */
export type OccurrenceScope = 'this' | 'following' | 'all';

/** A series and its overrides as a client holds them (live records). */
export interface SeriesState {
  readonly series: EventSource;
  readonly overrides: readonly EventSource[];
  /** The zone of the series' calendar (used when the series has none of its own). */
  readonly calendarZone: string | null;
  /** The reminders of the series and of its overrides (their `eventUid` names one of them). */
  readonly reminders?: readonly EventSource[];
}

/** One record write of a plan: a create carries every field; an update only the changed ones. */
export interface PlannedPut {
  readonly uid: string;
  readonly fields: FieldValues;
  readonly create: boolean;
}

/** The record writes that carry out an occurrence edit or removal, in the order to apply them. */
export interface OccurrencePlan {
  readonly puts: readonly PlannedPut[];
  /** Events to delete (before the puts: a re-keyed override is removed, then created under its new key). */
  readonly removes: readonly string[];
  /** The record that holds the edited occurrence afterwards (null after a removal). */
  readonly target: string | null;
  /** Reminders to create after the event writes: those of a re-keyed override, and a split series' own. */
  readonly reminders: readonly PlannedPut[];
  /**
   * Overrides as the server makes them once the puts arrive (an "all events" move re-keys them in
   * place, `followMoves`): the device writes them to its own copy at once and pushes nothing for them.
   */
  readonly derived?: readonly { readonly uid: string; readonly fields: FieldValues }[];
}

/** The fields an override copies from its series when it is created. */
const COPIED = ['calendarUid', 'title', 'description', 'location', 'allDay', 'timezone'] as const;

/** A series' time facts, read once. */
interface SeriesTime {
  readonly allDay: boolean;
  readonly zone: string;
  /** DTSTART as local ms (floating). */
  readonly startLocal: number;
  /** Duration: ms, or whole days for all-day. */
  readonly duration: number;
}

function seriesTime(state: SeriesState): SeriesTime {
  const f = state.series.fields;
  const allDay = f.allDay === true;
  const zone = typeof f.timezone === 'string' ? f.timezone : (state.calendarZone ?? 'UTC');
  const start = String(f.startTime);
  const end = String(f.endTime);
  if (allDay) {
    const startLocal = Date.parse(`${start}T00:00:00.000Z`);
    return { allDay, zone, startLocal, duration: Math.max(1, Math.round((Date.parse(`${end}T00:00:00.000Z`) - startLocal) / DAY_MS)) };
  }
  const instant = Date.parse(start);
  return { allDay, zone, startLocal: localMsOf(instant, zone), duration: Date.parse(end) - instant };
}

/** An occurrence key (instant or date text) as local ms in the series' zone; null when unreadable. */
function localOf(t: SeriesTime, value: string): number | null {
  if (t.allDay) {
    const date = asAllDayDate(value);
    return date === null ? null : Date.parse(`${date}T00:00:00.000Z`);
  }
  const instant = parseIsoInstant(value);
  return instant === null ? null : localMsOf(instant.getTime(), t.zone);
}

/** Local ms back to the series' form: a date, or an instant in `toISOString` form. */
function textOf(t: SeriesTime, local: number): string {
  return t.allDay ? new Date(local).toISOString().slice(0, 10) : new Date(instantOfLocal(local, t.zone)).toISOString();
}

/** The rule's starts (local ms, ascending) in [from, to), at most `limit`. */
function startsIn(t: SeriesTime, rule: string, from: number, to: number, limit = 1_000_000): number[] {
  return expandRule({ rule, start: t.startLocal, toLocal: (i) => localMsOf(i, t.zone), from, to, limit });
}

/** An UNTIL of `form` that lets the series occur up to local `bound` (inclusive, whole seconds). */
function untilAt(t: SeriesTime, form: UntilValue['form'], bound: number): string {
  const day = Math.floor(bound / DAY_MS) * DAY_MS;
  // A date means its whole day: kept for an all-day series (whose bounds are days) and for a bound at a day's last second.
  if (form === 'date' && (t.allDay || bound === day + DAY_MS - 1000)) return untilText({ form, wall: day });
  if (form === 'floating') return untilText({ form, wall: bound });
  return utcUntil(instantOfLocal(bound, t.zone));
}

/**
 * The rule of a series whose occurrences all move by `shift` local ms (an "all events" or "this and
 * following" move), with an UNTIL that ends it after the same occurrences, each moved. The UNTIL
 * stays as written while it does: a series that ends on 28 December, moved from 08:00 to 08:30,
 * still ends on the 28th. It moves only as far as it must: later, to keep the last occurrence when
 * that moved past it (an UNTIL written at the last occurrence itself, as many apps write it);
 * earlier, to keep out the next one of the rule when that moved onto it.
 */
function shiftedUntil(t: SeriesTime, rule: string, shift: number): string {
  const value = untilOf(rule);
  if (value === null || shift === 0) return rule;
  const bound = untilLocalOf(value, (i) => localMsOf(i, t.zone));
  if (shift > 0) {
    const last = startsIn(t, rule, bound - shift + 1, bound + 1).at(-1);
    return last === undefined ? rule : withEnd(rule, { until: untilAt(t, value.form, last + shift) });
  }
  const [next] = startsIn(t, withEnd(rule, {}), bound + 1, bound - shift + 1, 1);
  return next === undefined ? rule : withEnd(rule, { until: untilAt(t, value.form, next + shift - 1000) });
}

/**
 * UNTIL for a series that ends just before the occurrence at `local`: its last occurrence before
 * that one (a date for all-day, else in UTC), so the series' end date is the day it last occurs
 * on, not the day of the occurrence it no longer has.
 */
function untilBefore(t: SeriesTime, rule: string, local: number): string {
  const last = startsBefore(t, rule, local).at(-1) ?? local - (t.allDay ? DAY_MS : 1000);
  return t.allDay ? untilText({ form: 'date', wall: last }) : utcUntil(instantOfLocal(last, t.zone));
}

/**
 * The rule's starts (local ms) from DTSTART that happen before the occurrence at `local`. Compared
 * as instants: an occurrence in a spring-forward gap is written at the shifted time (02:00 read as
 * 03:00), so its own start, at 02:00 by the rule's wall clock, is before it by local ms alone.
 */
function startsBefore(t: SeriesTime, rule: string, local: number): number[] {
  const starts = startsIn(t, rule, t.startLocal, local + 1);
  if (t.allDay) return starts.filter((s) => s < local);
  const at = instantOfLocal(local, t.zone);
  return starts.filter((s) => instantOfLocal(s, t.zone) < at);
}

/** How many occurrences the rule gives from DTSTART up to (not including) `local`, exdates not subtracted (COUNT counts them). */
function occurrencesBefore(t: SeriesTime, rule: string, local: number): number {
  return startsBefore(t, rule, local).length;
}

function exdateEntries(f: FieldValues): string[] {
  return listEntries(f.exdate);
}

/** The patch's start and end as local ms, when it moves the occurrence; else the occurrence's own. */
function movedTimes(t: SeriesTime, occurrenceLocal: number, patch: FieldValues): { start: number; end: number } {
  const start = typeof patch.startTime === 'string' ? (localOf(t, patch.startTime) ?? occurrenceLocal) : occurrenceLocal;
  const span = t.allDay ? t.duration * DAY_MS : t.duration;
  if (typeof patch.endTime === 'string') {
    const end = t.allDay ? localOf(t, patch.endTime) : parseIsoInstant(patch.endTime)?.getTime() ?? null;
    if (end !== null) return { start, end: t.allDay ? end : localMsOf(end, t.zone) };
  }
  return { start, end: start + span };
}

/** Start and end fields of an occurrence that starts at local `start` and ends at local `end`. */
function timeFields(t: SeriesTime, start: number, end: number): FieldValues {
  return { startTime: textOf(t, start), endTime: textOf(t, end) };
}

/**
 * The moved occurrence's fields: a timed patch's own instants where it gives them. Its wall times
 * cannot stand in for them in the repeated hour of a fall-back, where a wall time reads back as
 * the first of the two (RFC 5545 3.3.5) and an end there could land before its start.
 */
function movedFields(t: SeriesTime, moved: { start: number; end: number }, patch: FieldValues): FieldValues {
  const fields: Record<string, FieldValue> = { ...timeFields(t, moved.start, moved.end) };
  if (t.allDay) return fields;
  for (const name of ['startTime', 'endTime'] as const) {
    const instant = typeof patch[name] === 'string' ? parseIsoInstant(patch[name]) : null;
    if (instant !== null) fields[name] = instant.toISOString();
  }
  return fields;
}

/**
 * The series' own start and end when a move of one occurrence moves them all: its first occurrence
 * at local `newStart`, lasting as long as the moved occurrence does. For a timed series that length
 * is the instants' (`times`): the wall times of an end in a fall-back's repeated hour would give a
 * negative one.
 */
function seriesTimeFields(t: SeriesTime, newStart: number, moved: { start: number; end: number }, times: FieldValues): FieldValues {
  if (t.allDay) return timeFields(t, newStart, newStart + (moved.end - moved.start));
  const startTime = String(textOf(t, newStart));
  const length = Date.parse(String(times.endTime)) - Date.parse(String(times.startTime));
  return { startTime, endTime: new Date(Date.parse(startTime) + length).toISOString() };
}

/** A patch without the fields the plan decides itself (times, the override pair, rule and exdate). */
function plainPatch(patch: FieldValues): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  for (const [k, v] of Object.entries(patch)) {
    if (!['startTime', 'endTime', 'recurringEventUid', 'originalStartTime', 'rrule', 'exdate', 'moves'].includes(k)) out[k] = v;
  }
  return out;
}

/**
 * A fresh override of `seriesUid` for the occurrence named `original`, copying `from`'s fields,
 * with `fields` on top. Its uid is new: a uid derived from the occurrence would meet the tombstone
 * of an override deleted earlier (a tombstone is final), so two devices that override one
 * occurrence offline make two overrides, and both show.
 */
function newOverride(seriesUid: string, original: string, from: FieldValues, fields: FieldValues, newUid: () => string): PlannedPut {
  const copied: Record<string, FieldValue> = {};
  for (const k of COPIED) copied[k] = from[k] ?? null;
  return {
    uid: newUid(),
    create: true,
    fields: { ...copied, ...fields, recurringEventUid: seriesUid, originalStartTime: original, rrule: null, exdate: null },
  };
}

/** The override of the occurrence at local `local`, if the series has one. */
function overrideAt(state: SeriesState, t: SeriesTime, local: number): EventSource | undefined {
  return state.overrides.find((o) => typeof o.fields.originalStartTime === 'string' && localOf(t, o.fields.originalStartTime) === local);
}

/** The occurrence an override replaces, as local ms in the series' zone; null when unreadable. */
function originalLocal(t: SeriesTime, o: EventSource): number | null {
  return typeof o.fields.originalStartTime === 'string' ? localOf(t, o.fields.originalStartTime) : null;
}

/**
 * An override's occurrence key moved by `shift` local ms, and its times moved as much when it is
 * still at its occurrence's time (an override moved on its own stays where it was put).
 */
function shiftedKey(t: SeriesTime, o: EventSource, original: number, shift: number): FieldValues {
  const own = typeof o.fields.startTime === 'string' ? localOf(t, o.fields.startTime) : null;
  const end = typeof o.fields.endTime === 'string' ? localOf(t, o.fields.endTime) : null;
  const times = own === original && end !== null && shift !== 0 ? timeFields(t, own + shift, end + shift) : {};
  return { originalStartTime: textOf(t, original + shift), ...times };
}

/**
 * The splits of "this and following" (and of "all" when the times move): later overrides and
 * exdates move to `targetUid`, shifted by `shift` local ms, re-keyed (an override's series and
 * occurrence never change: it is removed and made again under its new key).
 */
function moveLater(
  state: SeriesState,
  t: SeriesTime,
  fromLocal: number,
  shift: number,
  targetUid: string,
  newUid: () => string,
  targetCalendar: FieldValue = state.series.fields.calendarUid ?? null,
): { puts: PlannedPut[]; removes: string[]; exdate: string[]; reminders: PlannedPut[] } {
  const puts: PlannedPut[] = [];
  const removes: string[] = [];
  const reminders: PlannedPut[] = [];
  for (const o of state.overrides) {
    const original = originalLocal(t, o);
    if (original === null || original < fromLocal) continue;
    removes.push(o.uid);
    const { recurringEventUid: _r, originalStartTime: _o, ...rest } = o.fields;
    const { originalStartTime, ...times } = shiftedKey(t, o, original, shift);
    const put = newOverride(targetUid, String(originalStartTime), o.fields, { ...rest, ...times, calendarUid: targetCalendar }, newUid);
    puts.push(put);
    reminders.push(...remindersFor(state, o.uid, put.uid, newUid));
  }
  const exdate: string[] = [];
  for (const x of exdateEntries(state.series.fields)) {
    const local = localOf(t, x);
    if (local !== null && local >= fromLocal) exdate.push(textOf(t, local + shift));
  }
  return { puts, removes, exdate, reminders };
}

/**
 * Copies of the reminders of event `from` for event `to`, with new uids: `from` is going away (a
 * re-keyed override) or ends where `to` goes on (a split series), and its reminders would not
 * reach `to`'s occurrences. `relativeOnly` keeps a reminder at a fixed moment (remindAt) with `from`.
 */
function remindersFor(state: SeriesState, from: string, to: string, newUid: () => string, relativeOnly = false): PlannedPut[] {
  return (state.reminders ?? [])
    .filter((r) => r.fields.eventUid === from && !(relativeOnly && r.fields.minutesBefore == null))
    .map((r) => ({ uid: newUid(), create: true, fields: { ...r.fields, eventUid: to } }));
}

/**
 * The wall time of the rule's occurrence (from `t`'s start) that is stored as the occurrence at
 * `local` when that one is in a spring-forward gap: its wall time does not exist (02:00), so it is
 * stored at the instant `local` reads as (03:00, RFC 5545 §3.3.5). Else `local` itself.
 */
function nominalWall(t: SeriesTime, rule: string, local: number): number {
  if (t.allDay || rule === '') return local;
  const at = instantOfLocal(local, t.zone);
  return startsIn(t, rule, local - DAY_MS, local + 1).find((s) => s !== local && instantOfLocal(s, t.zone) === at) ?? local;
}

/** Where a series of `rule` that should begin at local `wall` begins (`gapStart`), or null when it begins there. */
function gapStartFor(t: SeriesTime, rule: string, wall: number): GapStart | null {
  return t.allDay || rule === '' ? null : gapStart(rule, wall, t.zone);
}

/**
 * Whether a continuation that starts at local `start`, before the occurrence at `from` it was split
 * at, begins at that occurrence's `gapStart`: it goes on at the series' own times (no shift),
 * though its start is earlier.
 */
function anchoredAt(t: SeriesTime, fields: FieldValues, start: number, from: number, exdate: readonly string[]): boolean {
  if (t.allDay || start >= from || typeof fields.rrule !== 'string') return false;
  const cancelled = new Set(exdate.map((x) => localOf(t, x)));
  const wall = gapStartOf(fields.rrule, start, t.zone, (s) => cancelled.has(s));
  return wall !== null && instantOfLocal(wall, t.zone) === instantOfLocal(from, t.zone);
}

/**
 * The record writes of an edit of the occurrence `occurrenceStart` (its `originalStart` as the
 * expander reports it) of a series (docs/protocol.md, "One occurrence of a series"):
 * - `this`: patches the occurrence's override, or creates one;
 * - `all`: patches the series; a move of the occurrence moves every occurrence by as much wall-clock
 *   time, exdates and overrides along with them;
 * - `following`: ends the series before the occurrence (UNTIL at its last occurrence before it, or a
 *   COUNT of the occurrences before it) and starts a new series (`newUid`) there with the patch
 *   applied and the rest of the COUNT, moving later exdates and overrides to it, and copying the
 *   series' reminders that are minutes before an occurrence; on the first occurrence it is `all`.
 * An override made again under a new key keeps its reminders (copied to it).
 * Pure: the SDK applies the plan through its outbox.
 */
export function planOccurrenceEdit(
  state: SeriesState,
  occurrenceStart: string,
  patch: FieldValues,
  scope: OccurrenceScope,
  newUid: () => string,
): OccurrencePlan {
  const t = seriesTime(state);
  const sf = state.series.fields;
  const local = localOf(t, occurrenceStart);
  if (local === null) throw new RangeError(`occurrenceStart ${occurrenceStart} is not an instant or date of this series`);
  const moved = movedTimes(t, local, patch);
  const shift = moved.start - local;
  const times = movedFields(t, moved, patch);
  const plain = plainPatch(patch);
  const rule = String(sf.rrule ?? '');

  if (scope === 'this') {
    if (plain.calendarUid !== undefined && plain.calendarUid !== sf.calendarUid) {
      throw new RangeError('an occurrence is in its series\' calendar: move the series ("all" or "following") to another calendar');
    }
    const existing = overrideAt(state, t, local);
    if (existing !== undefined) {
      const changed = { ...plain, ...(patch.startTime !== undefined || patch.endTime !== undefined ? times : {}) };
      return { puts: [{ uid: existing.uid, fields: changed, create: false }], removes: [], target: existing.uid, reminders: [] };
    }
    const put = newOverride(state.series.uid, textOf(t, local), sf, { ...times, ...plain }, newUid);
    return { puts: [put], removes: [], target: put.uid, reminders: [] };
  }

  const isFirst = local <= t.startLocal;
  if (scope === 'all' || isFirst) {
    const newStart = t.startLocal + shift;
    // Moved onto a wall time its first day skips (01:30 to 02:30 on the night 02:00 becomes 03:00), it begins earlier (`gapStart`).
    const nextRule = patch.rrule !== undefined ? String(patch.rrule ?? '') : rule;
    const gap = shift !== 0 ? gapStartFor(t, nextRule, newStart) : null;
    const seriesPatch: Record<string, FieldValue> = { ...plain };
    if (shift !== 0 || patch.endTime !== undefined) {
      Object.assign(seriesPatch, seriesTimeFields(t, gap?.start ?? newStart, moved, times));
      if (shift !== 0) {
        if (patch.rrule !== undefined) seriesPatch.rrule = typeof patch.rrule === 'string' ? countingGap(patch.rrule, gap) : patch.rrule;
        else if (rule !== '') seriesPatch.rrule = countingGap(shiftedUntil(t, rule, shift), gap);
        // Recorded, so what a device that has not seen the move edits offline follows it
        // (`followMoves`): by as much as the wall times moved, also when the start is a gap's.
        seriesPatch.moves = gap === null ? withMove(t, sf.moves, t.startLocal, newStart) : withMove(t, sf.moves, gap.start - shift, gap.start);
        // Each override the server re-keys by this move to its occurrence's new time stays the same
        // record (its uid, its reminders), so a device that has not seen the move still edits it;
        // the rest (a move onto occurrences the series had leaves one ambiguous) are made again.
        const movedSeries = { uid: state.series.uid, fields: { ...sf, ...seriesPatch } };
        const calendar: FieldValues = seriesPatch.calendarUid !== undefined ? { calendarUid: seriesPatch.calendarUid } : {};
        const derived = followMoves({ ...state, series: movedSeries }).overrides
          .filter((f) => {
            const o = state.overrides.find((x) => x.uid === f.uid)!;
            const original = originalLocal(t, o);
            return original !== null && localOf(t, String(f.fields.originalStartTime)) === original + shift;
          })
          .map((f) => ({ uid: f.uid, fields: { ...f.fields, ...calendar } }));
        const kept = new Set(derived.map((d) => d.uid));
        const rest = { ...state, overrides: state.overrides.filter((o) => !kept.has(o.uid)) };
        const later = moveLater(rest, t, Number.NEGATIVE_INFINITY, shift, state.series.uid, newUid, seriesPatch.calendarUid ?? sf.calendarUid ?? null);
        // Written only when there are entries to move: a cancellation another device made meanwhile
        // then stays, and follows the move on the server (`followMoves`).
        const exdate = [...(gap?.cancelled ?? []).map((c) => textOf(t, c)), ...later.exdate];
        if (exdate.length > 0) seriesPatch.exdate = exdate.join(',');
        return { puts: [{ uid: state.series.uid, fields: seriesPatch, create: false }, ...later.puts], removes: later.removes, target: state.series.uid, reminders: later.reminders, derived };
      }
    }
    if (patch.rrule !== undefined) seriesPatch.rrule = patch.rrule;
    // A series moved to another calendar takes its overrides along on the server, which the pull brings back.
    return { puts: [{ uid: state.series.uid, fields: seriesPatch, create: false }], removes: [], target: state.series.uid, reminders: [] };
  }

  // This and following: the old series ends before the occurrence, a new one begins at it.
  const count = ruleCount(rule);
  const before = count === null ? 0 : occurrencesBefore(t, rule, local);
  const oldRule = count === null ? withEnd(rule, { until: untilBefore(t, rule, local) }) : withEnd(rule, { count: before });
  // Kept at its times, an occurrence in a gap goes on at the rule's wall time, not the one it is stored at.
  const anchor = shift === 0 && patch.rrule === undefined ? gapStartFor(t, rule, nominalWall(t, rule, local)) : null;
  // A new repeat rule in the patch is the new series' own; else the old rule goes on.
  const newRule =
    patch.rrule !== undefined ? patch.rrule : count === null ? shiftedUntil(t, rule, shift) : countingGap(withEnd(rule, { count: Math.max(1, count - before) }), anchor);
  const uid = newUid();
  const later = moveLater(state, t, local, shift, uid, newUid, plain.calendarUid ?? sf.calendarUid ?? null);
  const exdate = [...(anchor?.cancelled ?? []).map((s) => textOf(t, s)), ...later.exdate];
  const copied: Record<string, FieldValue> = {};
  for (const k of COPIED) copied[k] = sf[k] ?? null;
  const next: PlannedPut = {
    uid,
    create: true,
    fields: {
      ...copied,
      ...plain,
      ...(anchor === null ? times : seriesTimeFields(t, anchor.start, moved, times)),
      rrule: newRule,
      exdate: newRule !== null && exdate.length > 0 ? exdate.join(',') : null,
      recurringEventUid: null,
      originalStartTime: null,
      splitFromUid: state.series.uid,
      splitFromStart: textOf(t, local),
    },
  };
  // Only the rule: an exdate written here would undo a cancellation another device made meanwhile
  // (the latest push wins a field); entries past the end are dead, and the server moves them on.
  const ended: PlannedPut = { uid: state.series.uid, create: false, fields: { rrule: oldRule } };
  const reminders = [...remindersFor(state, state.series.uid, uid, newUid, true), ...later.reminders];
  // The new series first: once the old one ends, what a device changed offline past the split follows it there (`followSplits`).
  return { puts: [next, ended, ...later.puts], removes: later.removes, target: uid, reminders };
}

/** What `followSplits` changes: the series' exdate (when it changes), overrides re-keyed onto a continuation, continuations' exdates. */
export interface SplitFollowing {
  /** The series' new exdate, or undefined when it stays. */
  readonly seriesExdate: string | null | undefined;
  /** Overrides of the series that move to a continuation: their fields afterwards, whole. */
  readonly overrides: readonly { readonly uid: string; readonly fields: FieldValues }[];
  /** Continuations whose exdate grows: their exdate afterwards. */
  readonly continuations: readonly { readonly uid: string; readonly exdate: string }[];
}

/** Whether a series' rule ends (UNTIL or COUNT): only an ended series can have been split. */
export function ruleEnds(rrule: FieldValue | undefined): boolean {
  return typeof rrule === 'string' && /(?:^|;)(?:UNTIL|COUNT)=/.test(rrule);
}

/**
 * Occurrence edits of a series that "this and following" split, made where the split was not seen
 * yet (another device, offline), moved to the series that continues it (docs/protocol.md, "One
 * occurrence of a series"). `state` is the series now, with its live overrides; `continuations`
 * the live series whose `splitFromUid` names it. Each override or exdate entry at or after a continuation's `splitFromStart`
 * goes to the continuation with the latest such start, moved by as much as that continuation's
 * first occurrence was moved from the occurrence it replaced (an override keeps its uid, its own
 * times unless it sat at its occurrence's time, and its reminders). Nothing moves unless the
 * series' rule ends. Pure: the server runs it after each pushed item that touches a split series.
 */
export function followSplits(state: SeriesState, continuations: readonly EventSource[]): SplitFollowing {
  const none: SplitFollowing = { seriesExdate: undefined, overrides: [], continuations: [] };
  if (!ruleEnds(state.series.fields.rrule)) return none;
  const t = seriesTime(state);
  const parts = continuations
    .filter((n) => n.fields.rrule != null && n.fields.recurringEventUid == null && n.fields.allDay === state.series.fields.allDay)
    .flatMap((n) => {
      const from = typeof n.fields.splitFromStart === 'string' ? localOf(t, n.fields.splitFromStart) : null;
      const start = typeof n.fields.startTime === 'string' ? localOf(t, n.fields.startTime) : null;
      if (from === null || start === null) return [];
      const exdate = exdateEntries(n.fields);
      return [{ uid: n.uid, calendarUid: n.fields.calendarUid ?? null, from, shift: anchoredAt(t, n.fields, start, from, exdate) ? 0 : start - from, exdate }];
    })
    .sort((a, b) => b.from - a.from);
  const partOf = (local: number) => parts.find((p) => p.from <= local);
  if (parts.length === 0) return none;

  const overrides: { uid: string; fields: FieldValues }[] = [];
  for (const o of state.overrides) {
    const original = originalLocal(t, o);
    const part = original === null ? undefined : partOf(original);
    if (part === undefined) continue;
    overrides.push({ uid: o.uid, fields: { ...o.fields, ...shiftedKey(t, o, original!, part.shift), recurringEventUid: part.uid, calendarUid: part.calendarUid } });
  }

  const kept: string[] = [];
  const moved = new Map<string, Set<number>>();
  const now = exdateEntries(state.series.fields);
  for (const x of now) {
    const local = localOf(t, x);
    const part = local === null ? undefined : partOf(local);
    if (part === undefined) {
      kept.push(x);
      continue;
    }
    const into = moved.get(part.uid) ?? new Set<number>();
    moved.set(part.uid, into.add(local! + part.shift));
  }
  const grown: { uid: string; exdate: string }[] = [];
  for (const part of parts) {
    const adding = moved.get(part.uid);
    if (adding === undefined) continue;
    const have = new Set(part.exdate.map((x) => localOf(t, x)));
    const fresh = [...adding].filter((local) => !have.has(local)).sort((a, b) => a - b);
    if (fresh.length > 0) grown.push({ uid: part.uid, exdate: [...part.exdate, ...fresh.map((local) => textOf(t, local))].join(',') });
  }
  const seriesExdate = kept.length === now.length ? undefined : kept.length > 0 ? kept.join(',') : null;
  return { seriesExdate, overrides, continuations: grown };
}

/** Most moves a series keeps (the oldest go first): a device offline across more of them than this has its edits at keys that match no occurrence. */
export const MAX_MOVES = 10;

/**
 * `moves` with one more move of the series' start, `from` → `to` (local ms; the oldest go past
 * MAX_MOVES). A start moved into a gap is recorded as a move to its `gapStart` from as far before
 * the start it had: both are wall times that exist, and the shift is the wall times'.
 */
function withMove(t: SeriesTime, moves: FieldValue | undefined, from: number, to: number): string {
  return [...listEntries(moves), `${textOf(t, from)}/${textOf(t, to)}`].slice(-MAX_MOVES).join(',');
}

/**
 * The `moves` of a series that is written whole again with another start (a calendar app's
 * "all events" move, over CalDAV), so the edits of devices that have not seen it follow it as they
 * follow the SDK's (`followMoves`). It is a move when the start changed and the rule (its end
 * aside), the zone and the kind of time did not: a new rule or zone is a new series' shape, not a
 * move. Undefined when `next` (the series' fields as written now, whole) is no move of `state`'s series.
 */
export function movesOfRewrite(state: SeriesState, next: FieldValues): string | undefined {
  const f = state.series.fields;
  const rule = f.rrule;
  if (typeof rule !== 'string' || rule === '' || typeof next.rrule !== 'string' || typeof next.startTime !== 'string') return undefined;
  if ((next.allDay === true) !== (f.allDay === true) || (next.timezone ?? null) !== (f.timezone ?? null)) return undefined;
  if (withEnd(rule, {}) !== withEnd(next.rrule, {})) return undefined;
  const t = seriesTime(state);
  const to = localOf(t, next.startTime);
  if (to === null || to === t.startLocal) return undefined;
  // A start written into a gap is stored at its `gapStart` (the import does it): the move is to the wall time meant.
  const cancelled = new Set(exdateEntries(next).map((x) => localOf(t, x)));
  const meant = t.allDay ? null : gapStartOf(next.rrule, to, t.zone, (s) => cancelled.has(s));
  return meant === null ? withMove(t, f.moves, t.startLocal, to) : withMove(t, f.moves, t.startLocal - (meant - to), to);
}

/**
 * Most occurrence checks `followMoves` makes for one series (a key costs one when it is an
 * occurrence now, and up to two more than the moves when it is not): a few hundred stale keys
 * follow; keys past the budget stay as they are. Bounds a push's work whatever the rule repeats.
 */
const MAX_FOLLOW_CHECKS = 4000;

/**
 * The fields of a series whose change can leave its exdate entries or overrides at keys of an
 * earlier move: a push that changes none of them, and adds no override, has nothing to follow.
 */
export const MOVE_INPUTS = ['startTime', 'allDay', 'timezone', 'rrule', 'exdate', 'moves'] as const;

/** What `followMoves` changes: the series' exdate (when it changes), and overrides re-keyed, whole. */
export interface MoveFollowing {
  readonly seriesExdate: string | null | undefined;
  readonly overrides: readonly { readonly uid: string; readonly fields: FieldValues }[];
}

/**
 * Occurrence edits of a series made where an "all events" move of it was not seen yet (another
 * device, offline), moved with it (docs/protocol.md, "One occurrence of a series"). The series
 * records each move of its start (`moves`: `from/to` pairs, oldest first). An exdate entry or an
 * override's occurrence that is not an occurrence of the series now is carried through the moves
 * after it in turn: each move whose rule, anchored at its `from`, has that occurrence adds its shift
 * (`to` − `from`, in wall-clock time). It is taken when it lands on an occurrence of the series now,
 * and left as it is otherwise. An override keeps its uid and reminders, and its own times unless it
 * sat at its occurrence's time. With `onlyOverride` it looks at that override alone (the one a push
 * just wrote; the rest were followed when they were written). Pure: the server runs it after each
 * pushed item of a moved series.
 */
export function followMoves(state: SeriesState, onlyOverride?: string): MoveFollowing {
  const none: MoveFollowing = { seriesExdate: undefined, overrides: [] };
  const rule = state.series.fields.rrule;
  if (typeof rule !== 'string' || rule === '') return none;
  const t = seriesTime(state);
  const moves = listEntries(state.series.fields.moves).flatMap((pair) => {
    const [from, to] = pair.split('/').map((x) => localOf(t, x));
    return from == null || to == null || from === to ? [] : [{ from, shift: to - from }];
  });
  if (moves.length === 0) return none;
  const open = withEnd(rule, {});
  const toLocal = (i: number) => localMsOf(i, t.zone);
  let budget = MAX_FOLLOW_CHECKS;
  const occurs = (start: number, r: string, local: number) => budget-- > 0 && occursAt({ rule: r, start, toLocal }, local);
  const followed = (local: number): number | null => {
    if (budget < moves.length + 2 || occurs(t.startLocal, rule, local)) return null;
    let at = local;
    for (const m of moves) if (occurs(m.from, open, at)) at += m.shift;
    return at !== local && occurs(t.startLocal, rule, at) ? at : null;
  };

  const overrides: { uid: string; fields: FieldValues }[] = [];
  for (const o of state.overrides) {
    if (onlyOverride !== undefined && o.uid !== onlyOverride) continue;
    const original = originalLocal(t, o);
    const to = original === null ? null : followed(original);
    if (to !== null) overrides.push({ uid: o.uid, fields: { ...o.fields, ...shiftedKey(t, o, original!, to - original!) } });
  }
  if (onlyOverride !== undefined) return { seriesExdate: undefined, overrides };
  // Each entry followed, or kept as written; an entry that lands on one already there goes.
  let changed = false;
  const kept = new Set<number>();
  const out: string[] = [];
  for (const x of exdateEntries(state.series.fields)) {
    const local = localOf(t, x);
    if (local === null) {
      out.push(x);
      continue;
    }
    const to = followed(local);
    if (kept.has(to ?? local)) {
      changed = true;
      continue;
    }
    kept.add(to ?? local);
    if (to !== null) changed = true;
    out.push(to === null ? x : textOf(t, to));
  }
  return { seriesExdate: changed ? (out.length > 0 ? out.join(',') : null) : undefined, overrides };
}

/**
 * The record writes that remove the occurrence `occurrenceStart`:
 * - `this`: adds it to the series' exdate and deletes its override;
 * - `following`: ends the series before it (UNTIL, or the COUNT before it) and deletes the later
 *   overrides; from the first occurrence on it deletes the series;
 * - `all`: deletes the series (the cascade takes its overrides).
 */
export function planOccurrenceRemoval(state: SeriesState, occurrenceStart: string, scope: OccurrenceScope): OccurrencePlan {
  const t = seriesTime(state);
  const sf = state.series.fields;
  const local = localOf(t, occurrenceStart);
  if (local === null) throw new RangeError(`occurrenceStart ${occurrenceStart} is not an instant or date of this series`);
  if (scope === 'all' || (scope === 'following' && local <= t.startLocal)) return { puts: [], removes: [state.series.uid], target: null, reminders: [] };
  if (scope === 'this') {
    const key = textOf(t, local);
    const exdate = [...exdateEntries(sf).filter((x) => localOf(t, x) !== local), key].join(',');
    const existing = overrideAt(state, t, local);
    return { puts: [{ uid: state.series.uid, fields: { exdate }, create: false }], removes: existing ? [existing.uid] : [], target: null, reminders: [] };
  }
  const rule = String(sf.rrule ?? '');
  const count = ruleCount(rule);
  const oldRule = count === null ? withEnd(rule, { until: untilBefore(t, rule, local) }) : withEnd(rule, { count: occurrencesBefore(t, rule, local) });
  const removes = state.overrides
    .filter((o) => typeof o.fields.originalStartTime === 'string' && (localOf(t, o.fields.originalStartTime) ?? -1) >= local)
    .map((o) => o.uid);
  // Only the rule, as a split writes it: the exdate entries past the end are dead.
  return { puts: [{ uid: state.series.uid, fields: { rrule: oldRule }, create: false }], removes, target: null, reminders: [] };
}
