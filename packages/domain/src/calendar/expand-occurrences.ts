import { dateOfMs, instantMsOf, isoOfMs, parseIsoInstant } from '../records/datetime.js';
import { asAllDayDate } from '../records/event-rules.js';
import type { FieldValues } from '../records/types.js';
import { type EventSource, OCCURRENCE_LIMIT, type Occurrence, type OccurrencePage, type OccurrenceWindow } from './occurrence.js';
import { expandRule } from './rule-expansion.js';
import { instantOfLocal, localMsOf } from './zone.js';

const DAY_MS = 86_400_000;

/** Local ms (floating midnight) of a `YYYY-MM-DD` date. */
const dateMs = instantMsOf;
/** The `YYYY-MM-DD` date of a floating local time. */
const dateText = dateOfMs;

/**
 * One occurrence on its way out: its start as an instant for ordering, and what its wire form is
 * made from (the wire form is made only for those kept). No closure per occurrence: a calendar
 * view places thousands of them.
 */
interface Placed {
  readonly at: number;
  readonly uid: string;
  /** The series' floating start of this occurrence (local ms; an all-day series' date at midnight), or 0 for a single event. */
  readonly local: number;
  readonly source: SingleSource | SeriesSource;
}

/** A single event or an override, as placed. */
interface SingleSource {
  readonly kind: 'single';
  readonly f: FieldValues;
  readonly allDay: boolean;
  readonly zone: string | null;
  readonly end: number;
}

/** A series, once per expansion; each occurrence adds its own start. */
interface SeriesSource {
  readonly kind: 'series';
  readonly calendarUid: string;
  readonly title: string;
  readonly allDay: boolean;
  readonly zone: string;
  /** Days (all-day) or ms (timed) from an occurrence's start to its end. */
  readonly length: number;
}

/** What the expander knows of a window, once parsed. */
interface Window {
  readonly from: number;
  readonly to: number;
  readonly tz: string;
  readonly limit: number;
}

/** An occurrence overlaps the window when it ends after `from` and starts before `to`; one without length when it starts in it. */
function overlaps(start: number, end: number, w: Window): boolean {
  return start < w.to && (end > w.from || (end === start && start >= w.from));
}

/** The key that names one occurrence of a series: its date (all-day series) or its start instant (ms, as text). */
function occurrenceKey(allDay: boolean, value: string): string | null {
  if (allDay) return asAllDayDate(value);
  const instant = instantMsOf(value);
  return Number.isNaN(instant) ? null : String(instant);
}

function singleOf(uid: string, f: FieldValues, zone: string | null, w: Window): Placed | null {
  const allDay = f.allDay === true;
  const startText = String(f.startTime);
  const endText = String(f.endTime);
  const start = allDay ? instantOfLocal(dateMs(startText), w.tz) : instantMsOf(startText);
  const end = allDay ? instantOfLocal(Math.max(dateMs(endText), dateMs(startText) + DAY_MS), w.tz) : instantMsOf(endText);
  if (!overlaps(start, end, w)) return null;
  return { at: start, uid, local: 0, source: { kind: 'single', f, allDay, zone, end } };
}

/** The wire form of a placed occurrence. */
function occurrenceOf(p: Placed): Occurrence {
  const s = p.source;
  if (s.kind === 'single') {
    const f = s.f;
    const override = typeof f.recurringEventUid === 'string';
    const startText = String(f.startTime);
    const endText = String(f.endTime);
    return {
      eventUid: p.uid,
      seriesUid: override ? String(f.recurringEventUid) : null,
      calendarUid: String(f.calendarUid),
      title: String(f.title),
      start: s.allDay ? startText : isoOfMs(p.at),
      end: s.allDay ? (endText > startText ? endText : dateText(dateMs(startText) + DAY_MS)) : isoOfMs(s.end),
      allDay: s.allDay,
      timezone: s.allDay ? null : s.zone,
      originalStart: override ? String(f.originalStartTime) : null,
      overridden: override,
    };
  }
  if (s.allDay) {
    const date = dateText(p.local);
    return { eventUid: p.uid, seriesUid: p.uid, calendarUid: s.calendarUid, title: s.title, start: date, end: dateText(p.local + s.length * DAY_MS), allDay: true, timezone: null, originalStart: date, overridden: false };
  }
  const start = isoOfMs(p.at);
  return { eventUid: p.uid, seriesUid: p.uid, calendarUid: s.calendarUid, title: s.title, start, end: isoOfMs(p.at + s.length), allDay: false, timezone: s.zone, originalStart: start, overridden: false };
}

function seriesOf(uid: string, f: FieldValues, zone: string, replaced: ReadonlySet<string>, w: Window, out: Placed[]): void {
  const allDay = f.allDay === true;
  const startText = String(f.startTime);
  const endText = String(f.endTime);
  const excluded = new Set<string>();
  if (typeof f.exdate === 'string') {
    for (const entry of f.exdate.split(',')) {
      const key = entry.trim() === '' ? null : occurrenceKey(allDay, entry.trim());
      if (key !== null) excluded.add(key);
    }
  }
  const skip = excluded.size > 0 || replaced.size > 0;
  if (allDay) {
    const first = dateMs(startText);
    const days = Math.max(1, Math.round((dateMs(endText) - first) / DAY_MS));
    const source: SeriesSource = { kind: 'series', calendarUid: String(f.calendarUid), title: String(f.title), allDay, zone, length: days };
    const starts = expandRule({
      rule: String(f.rrule),
      start: first,
      toLocal: (instant) => instant,
      from: localMsOf(w.from, w.tz) - (days + 1) * DAY_MS,
      to: localMsOf(w.to, w.tz) + DAY_MS,
      limit: w.limit + excluded.size + replaced.size + 1,
    });
    for (const local of starts) {
      if (skip && (excluded.has(dateText(local)) || replaced.has(dateText(local)))) continue;
      const at = instantOfLocal(local, w.tz);
      if (!overlaps(at, instantOfLocal(local + days * DAY_MS, w.tz), w)) continue;
      out.push({ at, uid, local, source });
    }
    return;
  }
  const firstInstant = instantMsOf(startText);
  const duration = instantMsOf(endText) - firstInstant;
  const first = localMsOf(firstInstant, zone);
  const source: SeriesSource = { kind: 'series', calendarUid: String(f.calendarUid), title: String(f.title), allDay, zone, length: duration };
  const starts = expandRule({
    rule: String(f.rrule),
    start: first,
    toLocal: (instant) => localMsOf(instant, zone),
    from: localMsOf(w.from - duration, zone) - DAY_MS,
    to: localMsOf(w.to, zone) + DAY_MS,
    limit: w.limit + excluded.size + replaced.size + 1,
  });
  for (const local of starts) {
    // The first occurrence is the stored start itself (it may be the later of a repeated local time).
    const at = local === first ? firstInstant : instantOfLocal(local, zone);
    if (skip && (excluded.has(String(at)) || replaced.has(String(at)))) continue;
    if (!overlaps(at, at + duration, w)) continue;
    out.push({ at, uid, local, source });
  }
}

/**
 * The occurrences of `events` (live events: singles, series, overrides) that overlap the window,
 * by RFC 5545: a timed series keeps its wall-clock time in its zone (the event's `timezone`, else
 * its calendar's from `calendarZone`, else UTC) across daylight-saving changes; an all-day series
 * repeats floating dates; exdate removes occurrences; an override replaces the occurrence its
 * `originalStartTime` names and is always shown at its own time, also when the series no longer
 * produces that occurrence. Pure: the server, the SDK and the web client all call it.
 */
export function expandOccurrences(
  events: Iterable<EventSource>,
  calendarZone: (calendarUid: string) => string | null,
  window: OccurrenceWindow,
): OccurrencePage {
  const from = parseIsoInstant(window.from);
  const to = parseIsoInstant(window.to);
  if (from === null || to === null) throw new RangeError('from and to must be ISO 8601 instants');
  const w: Window = { from: from.getTime(), to: to.getTime(), tz: window.tz ?? 'UTC', limit: window.limit ?? OCCURRENCE_LIMIT };
  const calendars = window.calendarUids === undefined ? null : new Set(window.calendarUids);
  const list = [...events];
  const seriesAllDay = new Map<string, boolean>();
  for (const e of list) if (typeof e.fields.rrule === 'string' && e.fields.recurringEventUid == null) seriesAllDay.set(e.uid, e.fields.allDay === true);
  // Which occurrences overrides replace, per series, keyed as the series names its occurrences.
  const replaced = new Map<string, Set<string>>();
  for (const e of list) {
    const series = e.fields.recurringEventUid;
    if (typeof series !== 'string' || typeof e.fields.originalStartTime !== 'string') continue;
    const key = occurrenceKey(seriesAllDay.get(series) ?? false, e.fields.originalStartTime);
    if (key === null) continue;
    let keys = replaced.get(series);
    if (keys === undefined) replaced.set(series, (keys = new Set()));
    keys.add(key);
  }
  const placed: Placed[] = [];
  const none = new Set<string>();
  for (const e of list) {
    const f = e.fields;
    if (calendars !== null && !calendars.has(String(f.calendarUid))) continue;
    const zone = typeof f.timezone === 'string' ? f.timezone : (calendarZone(String(f.calendarUid)) ?? 'UTC');
    if (typeof f.rrule === 'string' && f.recurringEventUid == null) {
      seriesOf(e.uid, f, zone, replaced.get(e.uid) ?? none, w, placed);
    } else {
      const single = singleOf(e.uid, f, zone, w);
      if (single !== null) placed.push(single);
    }
  }
  placed.sort((a, b) => a.at - b.at || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
  if (placed.length <= w.limit) return { occurrences: placed.map(occurrenceOf), truncated: false };
  return { occurrences: fairShare(placed, w.limit).map(occurrenceOf), truncated: true };
}

/**
 * At most `limit` of `placed` (in start order), cut so that the events with the most occurrences
 * give up their latest ones first: one event repeating every minute keeps its first occurrences and
 * no longer hides every other event after them. The events cut keep the same number each (the
 * largest that fits; what is left over goes to the earliest next ones), the others all of theirs.
 * With more events than `limit`, the earliest `limit`.
 */
function fairShare(placed: readonly Placed[], limit: number): Placed[] {
  const counts = new Map<string, number>();
  for (const p of placed) counts.set(p.uid, (counts.get(p.uid) ?? 0) + 1);
  const sorted = [...counts.values()].sort((a, b) => a - b);
  let left = limit;
  let cap = 0;
  let spare = 0;
  for (const [i, count] of sorted.entries()) {
    const groups = sorted.length - i;
    if (count * groups > left) {
      cap = Math.floor(left / groups);
      spare = left - cap * groups;
      break;
    }
    left -= count;
  }
  if (cap === 0) return placed.slice(0, limit);
  const kept = new Map<string, number>();
  return placed.filter((p) => {
    const n = kept.get(p.uid) ?? 0;
    let keep = n < cap;
    if (!keep && n === cap && spare > 0) {
      spare--;
      keep = true;
    }
    if (keep) kept.set(p.uid, n + 1);
    return keep;
  });
}
