import ICAL from 'ical.js';
import { gapSeriesFields, withRfcUntil } from '@calsync/domain/calendar';
import { asAllDayDate, isValidRrule, parseIsoInstant, type FieldValue, type FieldValues } from '@calsync/domain/records';
import { clipText } from './clip.js';
import { alarmComponent, isReminderAlarm, parseAlarms, type ParsedAlarm } from './alarms.js';
import { componentFromExtras, extrasOf, setText, textOf } from './extras.js';
import { readTime, timeOf, timeProperty, timesProperty, wallOf } from './ical-time.js';
import type { ObjectRecord, SkippedPart } from './object-types.js';
import { canonicalZone, ianaZoneOf } from './zones.js';

/*
 * A VEVENT is kept whole in `icalExtras` (its alarms aside: they are reminders), the properties the
 * fields hold included: on the way out each of those is written as it came while the field still
 * means what it read (so SUMMARY;LANGUAGE=de, an RRULE's part order, two EXDATE lines or a floating
 * DTSTART come back as sent) and rewritten from the field once the field changed.
 */

const DAY_MS = 86_400_000;

/** One iCalendar object of events: a single event or a series, its overrides, and their alarms (reminders). */
export interface EventObject {
  readonly root: ObjectRecord;
  readonly overrides: readonly ObjectRecord[];
  readonly reminders: readonly ObjectRecord[];
}

/** The zone an event's times are written in: its own, else its calendar's; null for UTC (also spelled "Etc/UTC" or "utc"). */
function writtenZone(fields: FieldValues, calendarZone: string | null): string | null {
  const zone = typeof fields.timezone === 'string' ? fields.timezone : calendarZone;
  return zone === null || canonicalZone(zone) === 'UTC' ? null : zone;
}

function setTimes(c: ICAL.Component, fields: FieldValues, zone: string | null): void {
  c.removeAllProperties('dtstart');
  c.removeAllProperties('dtend');
  c.removeAllProperties('duration');
  const timeZone = fields.allDay === true ? null : zone;
  c.addProperty(timeProperty('dtstart', String(fields.startTime), timeZone));
  c.addProperty(timeProperty('dtend', String(fields.endTime), timeZone));
}

/**
 * Whether the kept time properties of `names` can be written out as they came: each TZID is absent
 * or an IANA name (the VTIMEZONEs written are the IANA ones; a Windows or custom TZID is rewritten
 * in its IANA zone, same instants).
 */
function portable(c: ICAL.Component, names: readonly string[]): boolean {
  return names.every((n) =>
    c.getAllProperties(n).every((p) => {
      const tzid = p.getParameter('tzid');
      return typeof tzid !== 'string' || ianaZoneOf(tzid) === tzid;
    }),
  );
}

const same = (a: unknown, b: unknown) => (a ?? null) === (b ?? null);

/**
 * Writes the fields over a component rebuilt from its kept text: a property whose kept form still
 * reads as the field's value stays as it was written, another is rewritten from the field.
 */
function setFields(c: ICAL.Component, fields: FieldValues, uid: string, stamp: string | undefined, zone: string | null, floatingZone: string): void {
  // What the kept properties read as (not the kept text itself: that is the component, and copying
  // and writing it out again here was a third of a render).
  const notes: SkippedPart[] = [];
  const kept = eventFields(c, uid, floatingZone, notes, null, false);
  // calsync's own bookkeeping (the resource name a CalDAV client chose) is never written out.
  c.removeAllProperties('x-calsync-href');
  if (!c.hasProperty('uid')) c.addPropertyWithValue('uid', uid);
  if (!c.hasProperty('dtstamp')) c.addProperty(timeProperty('dtstamp', stamp ?? '1970-01-01T00:00:00.000Z', null));
  if (kept === null || !same(kept.title, fields.title) || !c.hasProperty('summary')) setText(c, 'summary', fields.title);
  if (kept === null || !same(kept.description, fields.description)) setText(c, 'description', fields.description);
  if (kept === null || !same(kept.location, fields.location)) setText(c, 'location', fields.location);
  const timesKept =
    kept !== null &&
    // A kept time read otherwise than written (a DTEND before its DTSTART) is written as stored.
    notes.length === 0 &&
    portable(c, ['dtstart', 'dtend']) &&
    (['startTime', 'endTime', 'allDay', 'timezone'] as const).every((k) => same(kept[k], k === 'timezone' && fields.allDay === true ? null : fields[k]));
  if (!timesKept) setTimes(c, fields, zone);
}

/**
 * The VEVENTs of an object: the event (with RRULE and EXDATE for a series), one per override
 * (RECURRENCE-ID in the series' form), each with its alarms. Each starts from the component as it
 * was kept, so what a calendar app sent comes back, and the fields that changed are written over.
 */
export function eventComponents(object: EventObject, calendarZone: string | null): ICAL.Component[] {
  const { root } = object;
  const f = root.fields;
  const zone = writtenZone(f, calendarZone);
  const floatingZone = calendarZone ?? 'UTC';
  const master = componentFromExtras(f.icalExtras, 'vevent');
  master.removeAllProperties('recurrence-id');
  setFields(master, f, root.uid, root.updatedAt, zone, floatingZone);
  const icalUid = String(master.getFirstPropertyValue('uid'));
  const keptSeries = master.hasProperty('rrule') ? seriesFields(master, f, floatingZone) : { rrule: null, exdate: null };
  if (!same(keptSeries.rrule, f.rrule)) {
    master.removeAllProperties('rrule');
    // The stored rule's UNTIL in the form RFC 5545 asks of this DTSTART (a calendar app reads a
    // date UNTIL on a timed series as its first moment; this store as the whole day).
    if (typeof f.rrule === 'string') master.addPropertyWithValue('rrule', ICAL.Recur.fromString(withRfcUntil(f.rrule, { allDay: f.allDay === true, zone: zone ?? 'UTC' })));
  }
  if (!same(keptSeries.exdate, f.exdate) || !portable(master, ['exdate']) || typeof f.rrule !== 'string') {
    master.removeAllProperties('exdate');
    const exdates = typeof f.rrule !== 'string' ? [] : String(f.exdate ?? '')
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean)
      .map((x) => (f.allDay === true ? asAllDayDate(x) : (parseIsoInstant(x)?.toISOString() ?? null)))
      .filter((x): x is string => x !== null);
    if (exdates.length > 0) master.addProperty(timesProperty('exdate', exdates, f.allDay === true ? null : zone));
  }
  const alarmsOf = (ownerUid: string, title: unknown) => object.reminders.filter((r) => r.fields.eventUid === ownerUid).map((r) => alarmComponent(r, title));
  // Kept alarms are the ones no reminder holds; the reminders' alarms are added.
  for (const a of alarmsOf(root.uid, f.title)) master.addSubcomponent(a);
  const out = [master];
  for (const o of object.overrides) {
    const c = componentFromExtras(o.fields.icalExtras, 'vevent');
    c.removeAllProperties('uid');
    c.addPropertyWithValue('uid', icalUid);
    c.removeAllProperties('rrule');
    c.removeAllProperties('exdate');
    const rid = c.getFirstProperty('recurrence-id');
    const keptRid = rid === null ? null : originalStartOf(rid, f, floatingZone);
    if (keptRid === null || !same(keptRid, o.fields.originalStartTime) || !portable(c, ['recurrence-id'])) {
      c.removeAllProperties('recurrence-id');
      c.addProperty(timeProperty('recurrence-id', String(o.fields.originalStartTime), f.allDay === true ? null : zone));
    }
    setFields(c, o.fields, root.uid, o.updatedAt, writtenZone(o.fields, calendarZone), floatingZone);
    for (const a of alarmsOf(o.uid, o.fields.title)) c.addSubcomponent(a);
    out.push(c);
  }
  return out;
}

/** RRULE and EXDATE of a series component as event fields (EXDATEs read in the series' zone). */
function seriesFields(master: ICAL.Component, fields: FieldValues, floatingZone: string): { rrule: string | null; exdate: string | null } {
  const rule = master.getFirstPropertyValue('rrule');
  const rrule = rule instanceof ICAL.Recur ? rule.toString() : null;
  const exdates: string[] = [];
  for (const prop of master.getAllProperties('exdate')) {
    const tzid = prop.getParameter('tzid');
    for (const v of prop.getValues()) {
      if (v instanceof ICAL.Time) exdates.push(readTime(v, typeof tzid === 'string' ? tzid : null, fields.timezone == null ? floatingZone : String(fields.timezone)).value);
    }
  }
  return { rrule, exdate: exdates.length > 0 ? exdates.map((x) => (fields.allDay === true ? x.slice(0, 10) : x)).join(',') : null };
}

/** The occurrence a RECURRENCE-ID names, as `originalStartTime` (a date for an all-day series). */
function originalStartOf(rid: ICAL.Property, series: FieldValues, floatingZone: string): string | null {
  const value = rid.getFirstValue();
  if (!(value instanceof ICAL.Time)) return null;
  const tzid = rid.getParameter('tzid');
  const original = readTime(value, typeof tzid === 'string' ? tzid : null, series.timezone == null ? floatingZone : String(series.timezone));
  return series.allDay === true ? original.value.slice(0, 10) : original.value;
}

/** What one VEVENT of an object says, as event fields (calendarUid and the override pair added by the caller). */
export interface ParsedEvent {
  readonly fields: FieldValues;
  readonly alarms: readonly ParsedAlarm[];
}

/** An object of events read from iCalendar: the event, its overrides by RECURRENCE-ID, what was left out. */
export interface ParsedEventObject {
  readonly icalUid: string;
  readonly root: ParsedEvent;
  readonly overrides: readonly (ParsedEvent & { readonly originalStart: string })[];
  readonly skipped: readonly SkippedPart[];
}

/** The event fields of one VEVENT (`icalExtras` only when `withExtras`). */
function eventFields(c: ICAL.Component, icalUid: string, floatingZone: string, skipped: SkippedPart[], fallbackTitle: string | null, withExtras = true): FieldValues | null {
  const start = timeOf(c, 'dtstart');
  if (start === null) {
    skipped.push({ uid: icalUid, reason: 'a VEVENT without DTSTART' });
    return null;
  }
  const end = timeOf(c, 'dtend');
  const problem = start.problem ?? end?.problem ?? null;
  if (problem !== null) {
    skipped.push({ uid: icalUid, reason: `a VEVENT whose ${problem}` });
    return null;
  }
  const s = readTime(start.value, start.tzid, floatingZone);
  let endValue: string;
  const duration = c.getFirstPropertyValue('duration');
  if (end !== null) {
    const e = readTime(end.value, end.tzid, floatingZone);
    endValue = s.allDay ? (e.allDay ? e.value : e.value.slice(0, 10)) : e.allDay ? `${e.value}T00:00:00.000Z` : e.value;
  } else if (duration instanceof ICAL.Duration) {
    const ms = duration.toSeconds() * 1000;
    endValue = s.allDay ? new Date(Date.parse(`${s.value}T00:00:00Z`) + Math.max(DAY_MS, ms)).toISOString().slice(0, 10) : new Date(Date.parse(s.value) + ms).toISOString();
  } else {
    endValue = s.allDay ? new Date(Date.parse(`${s.value}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10) : s.value;
  }
  if (s.allDay ? endValue < s.value : Date.parse(endValue) < Date.parse(s.value)) {
    skipped.push({ uid: icalUid, reason: 'a DTEND before its DTSTART (kept as ending when it starts)' });
    endValue = s.value;
  }
  const title = clipText('events', 'title', textOf(c, 'summary') ?? fallbackTitle ?? '(no title)', icalUid, skipped);
  return {
    title,
    description: clipText('events', 'description', textOf(c, 'description'), icalUid, skipped),
    location: clipText('events', 'location', textOf(c, 'location'), icalUid, skipped),
    startTime: s.value,
    endTime: endValue,
    allDay: s.allDay,
    timezone: s.zone,
    ...(withExtras ? { icalExtras: extrasOf(c, isReminderAlarm) } : {}),
  };
}

/**
 * A series whose DTSTART is a wall time its day skips (TZID, 02:30 on the night clocks go from
 * 02:00 to 03:00) begins at the domain's `gapStart`, an earlier occurrence of its rule that exists,
 * cancelled, so that the rest keep DTSTART's 02:30 as RFC 5545 reads it: stored at the instant the
 * DTSTART reads as (03:30), the series would be read as a 03:30 one. Its start, end, COUNT and
 * EXDATE, or nothing when the DTSTART exists (or the rule repeats within a day).
 */
function gapStartFields(master: ICAL.Component, series: FieldValues): FieldValues {
  const start = timeOf(master, 'dtstart');
  if (start === null || series.allDay === true || typeof series.timezone !== 'string' || typeof series.rrule !== 'string') return {};
  const length = Date.parse(String(series.endTime)) - Date.parse(String(series.startTime));
  return gapSeriesFields(series.rrule, wallOf(start.value), series.timezone, length, typeof series.exdate === 'string' ? series.exdate : null) ?? {};
}

/**
 * The records an object of VEVENTs (one UID) holds: the event (the component without
 * RECURRENCE-ID) with its RRULE and EXDATEs, each override, each alarm. What a record cannot hold
 * is listed in `skipped`: a second RRULE, an RDATE (kept in the extras, not expanded), a
 * THISANDFUTURE override, an alarm relative to the end; an object whose rule the expander cannot
 * read is skipped whole rather than half honoured.
 */
export function parseEventObject(vevents: readonly ICAL.Component[], floatingZone: string): ParsedEventObject | { readonly skipped: readonly SkippedPart[] } {
  const icalUid = textOf(vevents[0]!, 'uid') ?? '';
  const skipped: SkippedPart[] = [];
  const master = vevents.find((c) => !c.hasProperty('recurrence-id'));
  if (master === undefined) return { skipped: [{ uid: icalUid, reason: 'only RECURRENCE-ID instances, no event they belong to' }] };
  const rrules = master.getAllProperties('rrule');
  if (rrules.length > 1) return { skipped: [{ uid: icalUid, reason: 'more than one RRULE' }] };
  const fields = eventFields(master, icalUid, floatingZone, skipped, null);
  if (fields === null) return { skipped };
  const root: Record<string, FieldValue> = { ...fields, rrule: null, exdate: null };
  if (rrules.length === 1) {
    const series = seriesFields(master, fields, floatingZone);
    if (series.rrule === null || !isValidRrule(series.rrule)) return { skipped: [{ uid: icalUid, reason: `RRULE ${series.rrule ?? ''} cannot be expanded here` }] };
    root.rrule = series.rrule;
    root.exdate = series.exdate;
    Object.assign(root, gapStartFields(master, root));
    if (master.hasProperty('rdate')) skipped.push({ uid: icalUid, reason: 'RDATE kept as sent but not expanded' });
  }
  const overrides: (ParsedEvent & { originalStart: string })[] = [];
  for (const c of vevents) {
    if (c === master) continue;
    const rid = c.getFirstProperty('recurrence-id');
    if (rid === null) continue;
    if (rid.getParameter('range') !== undefined && rid.getParameter('range') !== null) {
      skipped.push({ uid: icalUid, reason: 'RECURRENCE-ID;RANGE=THISANDFUTURE is not supported' });
      continue;
    }
    const originalStart = originalStartOf(rid, fields, floatingZone);
    if (originalStart === null) continue;
    const of = eventFields(c, icalUid, floatingZone, skipped, String(root.title));
    if (of === null) continue;
    overrides.push({ originalStart, fields: { ...of, rrule: null, exdate: null }, alarms: parseAlarms(c, icalUid, skipped) });
  }
  return { icalUid, root: { fields: root, alarms: parseAlarms(master, icalUid, skipped) }, overrides, skipped };
}
