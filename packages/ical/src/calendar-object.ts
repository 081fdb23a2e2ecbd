import ICAL from 'ical.js';
import { eventComponents, parseEventObject, type EventObject, type ParsedEventObject } from './event-object.js';
import { icalText } from './extras.js';
import type { SkippedPart } from './object-types.js';
import { parseTaskObject, taskComponent, type ParsedTaskObject, type TaskObject } from './task-object.js';
import { vtimezoneOf } from './zones.js';

/** One object (one UID) read from an iCalendar text. */
export type ParsedObject = ({ readonly kind: 'event' } & ParsedEventObject) | ({ readonly kind: 'task' } & ParsedTaskObject);

/** An iCalendar text read: its objects, what was left out, and the calendar's name when it gives one (X-WR-CALNAME). */
export interface ParsedCalendar {
  readonly objects: readonly ParsedObject[];
  readonly skipped: readonly SkippedPart[];
  readonly name: string | null;
}

/** The text is not iCalendar. */
export class NotICalendarError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotICalendarError';
  }
}

/**
 * Reads an iCalendar text (a VCALENDAR; a feed, a file, or a CalDAV resource) into objects: the
 * VEVENTs of one UID make one event object (the event and its overrides), each VTODO one task.
 * VTIMEZONEs are registered so that a TZID that is no IANA name is read through its definition;
 * floating times are read in `floatingZone`. Throws NotICalendarError for text ical.js cannot parse.
 */
export function parseCalendar(text: string, floatingZone = 'UTC'): ParsedCalendar {
  let root: ICAL.Component;
  try {
    root = new ICAL.Component(ICAL.parse(text));
  } catch (error) {
    throw new NotICalendarError(`not iCalendar: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (root.name !== 'vcalendar') throw new NotICalendarError(`not a VCALENDAR but a ${root.name.toUpperCase()}`);
  // The object's own VTIMEZONEs define its other TZIDs while it is read, and only then: ical.js
  // keeps zones in one process-wide registry, and one account's definition of a name must not read
  // another account's times. (The read is synchronous: nothing else runs in between.)
  const own: string[] = [];
  for (const tz of root.getAllSubcomponents('vtimezone')) {
    const tzid = tz.getFirstPropertyValue('tzid');
    if (typeof tzid === 'string' && !ICAL.TimezoneService.has(tzid)) {
      ICAL.TimezoneService.register(new ICAL.Timezone(tz), tzid);
      own.push(tzid);
    }
  }
  try {
    return parseRoot(root, floatingZone);
  } finally {
    for (const tzid of own) ICAL.TimezoneService.remove(tzid);
  }
}

function parseRoot(root: ICAL.Component, floatingZone: string): ParsedCalendar {
  const skipped: SkippedPart[] = [];
  const objects: ParsedObject[] = [];
  const byUid = new Map<string, ICAL.Component[]>();
  for (const c of root.getAllSubcomponents('vevent')) {
    const uid = c.getFirstPropertyValue('uid');
    if (typeof uid !== 'string' || uid.length === 0) {
      skipped.push({ uid: '', reason: 'a VEVENT without UID' });
      continue;
    }
    const list = byUid.get(uid) ?? [];
    list.push(c);
    byUid.set(uid, list);
  }
  for (const vevents of byUid.values()) {
    const parsed = parseEventObject(vevents, floatingZone);
    if ('root' in parsed) objects.push({ kind: 'event', ...parsed });
    else skipped.push(...parsed.skipped);
  }
  for (const c of root.getAllSubcomponents('vtodo')) {
    const uid = c.getFirstPropertyValue('uid');
    if (typeof uid !== 'string' || uid.length === 0) {
      skipped.push({ uid: '', reason: 'a VTODO without UID' });
      continue;
    }
    objects.push({ kind: 'task', ...parseTaskObject(c, floatingZone) });
  }
  for (const c of root.getAllSubcomponents()) {
    if (!['vevent', 'vtodo', 'vtimezone'].includes(c.name)) skipped.push({ uid: String(c.getFirstPropertyValue('uid') ?? ''), reason: `a ${c.name.toUpperCase()} (calsync holds events and tasks)` });
  }
  for (const o of objects) skipped.push(...o.skipped);
  const name = root.getFirstPropertyValue('x-wr-calname');
  return { objects, skipped, name: typeof name === 'string' ? name : null };
}

/** What to write into a VCALENDAR: event objects, task objects, the calendar's zone for events without one, and its name. */
export interface CalendarContent {
  readonly events?: readonly EventObject[];
  readonly tasks?: readonly TaskObject[];
  readonly calendarZone?: string | null;
  readonly name?: string | null;
}

/**
 * A VCALENDAR (RFC 5545) of `content`: a VTIMEZONE for each zone the events are written in, then
 * each object's components. The text a CalDAV GET and a subscription feed answer.
 */
export function renderCalendar(content: CalendarContent): string {
  const calendarZone = content.calendarZone ?? null;
  const root = new ICAL.Component('vcalendar');
  root.addPropertyWithValue('version', '2.0');
  root.addPropertyWithValue('prodid', '-//calsync//calsync 0.1//EN');
  root.addPropertyWithValue('calscale', 'GREGORIAN');
  if (content.name) root.addPropertyWithValue('x-wr-calname', content.name);
  const components = [...(content.events ?? []).flatMap((e) => eventComponents(e, calendarZone)), ...(content.tasks ?? []).map((t) => taskComponent(t))];
  // A VTIMEZONE for each TZID the components use (a kept property may name another zone than its event's).
  const zones = new Set<string>();
  const collect = (c: ICAL.Component): void => {
    for (const p of c.getAllProperties()) {
      const tzid = p.getParameter('tzid');
      if (typeof tzid === 'string') zones.add(tzid);
    }
    for (const sub of c.getAllSubcomponents()) collect(sub);
  };
  for (const c of components) collect(c);
  for (const zone of [...zones].sort()) {
    const tz = vtimezoneOf(zone);
    if (tz !== null) root.addSubcomponent(tz);
  }
  for (const c of components) root.addSubcomponent(c);
  return icalText(root) + '\r\n';
}
