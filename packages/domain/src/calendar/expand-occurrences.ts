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

/** One occurrence on its way out: its start as an instant for ordering; the wire form is made only for those kept. */
interface Placed {
  readonly at: number;
  readonly uid: string;
  readonly make: () => Occurrence;
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
  const override = typeof f.recurringEventUid === 'string';
  return {
    at: start,
    uid,
    make: () => ({
      eventUid: uid,
      seriesUid: override ? String(f.recurringEventUid) : null,
      calendarUid: String(f.calendarUid),
      title: String(f.title),
      start: allDay ? startText : isoOfMs(start),
      end: allDay ? (endText > startText ? endText : dateText(dateMs(startText) + DAY_MS)) : isoOfMs(end),
      allDay,
      timezone: allDay ? null : zone,
      originalStart: override ? String(f.originalStartTime) : null,
      overridden: override,
    }),
  };
}

function seriesOf(uid: string, f: FieldValues, zone: string, replaced: ReadonlySet<string>, w: Window, out: Placed[]): void {
  const allDay = f.allDay === true;
  const startText = String(f.startTime);
  const endText = String(f.endTime);
  const excluded = new Set<string>();
  for (const entry of String(f.exdate ?? '').split(',')) {
    const key = entry.trim() === '' ? null : occurrenceKey(allDay, entry.trim());
    if (key !== null) excluded.add(key);
  }
  const calendarUid = String(f.calendarUid);
  const title = String(f.title);
  const skip = excluded.size > 0 || replaced.size > 0;
  if (allDay) {
    const first = dateMs(startText);
    const days = Math.max(1, Math.round((dateMs(endText) - first) / DAY_MS));
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
      out.push({
        at,
        uid,
        make: () => {
          const date = dateText(local);
          return { eventUid: uid, seriesUid: uid, calendarUid, title, start: date, end: dateText(local + days * DAY_MS), allDay, timezone: null, originalStart: date, overridden: false };
        },
      });
    }
    return;
  }
  const firstInstant = instantMsOf(startText);
  const duration = instantMsOf(endText) - firstInstant;
  const first = localMsOf(firstInstant, zone);
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
    out.push({
      at,
      uid,
      make: () => {
        const start = isoOfMs(at);
        return { eventUid: uid, seriesUid: uid, calendarUid, title, start, end: isoOfMs(at + duration), allDay, timezone: zone, originalStart: start, overridden: false };
      },
    });
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
  return { occurrences: placed.slice(0, w.limit).map((p) => p.make()), truncated: placed.length > w.limit };
}
