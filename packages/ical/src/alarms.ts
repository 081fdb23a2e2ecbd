import ICAL from 'ical.js';
import type { FieldValues } from '@calsync/domain/records';
import { componentFromExtras, extrasOf, textOf } from './extras.js';
import { timeProperty } from './ical-time.js';
import type { ObjectRecord, SkippedPart } from './object-types.js';

/** VALARM properties a reminder holds. */
const MODELED = new Set(['TRIGGER']);

/** Most minutes before a reminder may be (the reminder field's bound: four weeks). */
const MAX_MINUTES = 40_320;

/** An alarm read from iCalendar: the key that names it within its component, and its reminder fields (the parent added by the caller). */
export interface ParsedAlarm {
  readonly key: string;
  readonly fields: FieldValues;
}

/**
 * The VALARM of a reminder: TRIGGER from `minutesBefore` (before the start) or `remindAt` (an
 * absolute time), the rest from its kept extras, else a display alarm with the owner's title.
 */
export function alarmComponent(reminder: ObjectRecord, ownerTitle: unknown): ICAL.Component {
  const c = componentFromExtras(reminder.fields.icalExtras, 'valarm');
  c.removeAllProperties('trigger');
  if (typeof reminder.fields.remindAt === 'string') {
    c.addProperty(timeProperty('trigger', reminder.fields.remindAt, null));
  } else {
    const minutes = typeof reminder.fields.minutesBefore === 'number' ? reminder.fields.minutesBefore : 0;
    c.addPropertyWithValue('trigger', ICAL.Duration.fromSeconds(-minutes * 60));
  }
  if (!c.hasProperty('action')) c.addPropertyWithValue('action', 'DISPLAY');
  if (!c.hasProperty('description') && String(c.getFirstPropertyValue('action')).toUpperCase() === 'DISPLAY') {
    c.addPropertyWithValue('description', typeof ownerTitle === 'string' ? ownerTitle : 'Reminder');
  }
  // A reminder made through the API is named by its uid, so a calendar app's PUT of it names the same reminder;
  // one that came as iCalendar keeps the alarm as it was written (it is named by its position or its own UID).
  if (reminder.fields.icalExtras == null && !c.hasProperty('x-wr-alarmuid') && !c.hasProperty('uid')) c.addPropertyWithValue('x-wr-alarmuid', reminder.uid);
  return c;
}

/**
 * The alarms of a component as reminders: a TRIGGER before the start becomes `minutesBefore`, an
 * absolute one `remindAt`. A TRIGGER after the start, relative to the end, or beyond four weeks
 * is listed in `skipped` (a reminder cannot hold it). Named by X-WR-ALARMUID or UID, else by position.
 */
export function parseAlarms(component: ICAL.Component, icalUid: string, skipped: SkippedPart[]): ParsedAlarm[] {
  const out: ParsedAlarm[] = [];
  component.getAllSubcomponents('valarm').forEach((alarm, index) => {
    const trigger = alarm.getFirstProperty('trigger');
    const value = trigger?.getFirstValue();
    const key = textOf(alarm, 'x-wr-alarmuid') ?? textOf(alarm, 'uid') ?? `#${index}`;
    const extras = extrasOf(alarm, MODELED);
    if (value instanceof ICAL.Time) {
      out.push({ key, fields: { minutesBefore: null, remindAt: new Date(value.toUnixTime() * 1000).toISOString(), icalExtras: extras } });
      return;
    }
    if (!(value instanceof ICAL.Duration)) {
      skipped.push({ uid: icalUid, reason: 'a VALARM without a TRIGGER' });
      return;
    }
    const related = String(trigger?.getParameter('related') ?? 'START').toUpperCase();
    const minutes = -value.toSeconds() / 60;
    if (related !== 'START' || minutes < 0 || minutes > MAX_MINUTES || !Number.isInteger(minutes)) {
      skipped.push({ uid: icalUid, reason: `a VALARM ${trigger?.toICALString() ?? ''} (a reminder is whole minutes before the start, at most four weeks, or at a time)` });
      return;
    }
    out.push({ key, fields: { minutesBefore: minutes, remindAt: null, icalExtras: extras } });
  });
  return out;
}
