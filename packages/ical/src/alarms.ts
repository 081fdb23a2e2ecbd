import ICAL from 'ical.js';
import type { FieldValues } from '@calsync/domain/records';
import { componentFromExtras, extrasOf, textOf } from './extras.js';
import { timeProperty } from './ical-time.js';
import type { ObjectRecord, SkippedPart } from './object-types.js';

/* A VALARM is kept whole (its TRIGGER included, written back as it came while the reminder still means it). */

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
  const kept = triggerOf(c);
  const unchanged = kept !== null && (kept.remindAt ?? null) === (reminder.fields.remindAt ?? null) && (kept.minutesBefore ?? null) === (reminder.fields.minutesBefore ?? null);
  if (unchanged) {
    // the TRIGGER as it was written (-P0DT0H15M0S stays, not -PT15M)
  } else if (typeof reminder.fields.remindAt === 'string') {
    c.removeAllProperties('trigger');
    c.addProperty(timeProperty('trigger', reminder.fields.remindAt, null));
  } else {
    c.removeAllProperties('trigger');
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
    const key = textOf(alarm, 'x-wr-alarmuid') ?? textOf(alarm, 'uid') ?? `#${index}`;
    const extras = extrasOf(alarm);
    const trigger = triggerOf(alarm);
    if (trigger === null) {
      skipped.push({ uid: icalUid, reason: `a VALARM ${alarm.getFirstProperty('trigger')?.toICALString() ?? 'without a TRIGGER'} is kept as sent but is no reminder (a reminder is whole minutes before the start, at most four weeks, or at a time)` });
      return;
    }
    out.push({ key, fields: { ...trigger, icalExtras: extras } });
  });
  return out;
}

/** Whether a VALARM becomes a reminder (else it stays in its event's or task's kept text, as it came). */
export function isReminderAlarm(alarm: ICAL.Component): boolean {
  return triggerOf(alarm) !== null;
}

/** What a VALARM's TRIGGER means as reminder fields, or null when a reminder cannot hold it (after the start, relative to the end, beyond four weeks, not whole minutes). */
export function triggerOf(alarm: ICAL.Component): { minutesBefore: number | null; remindAt: string | null } | null {
  const trigger = alarm.getFirstProperty('trigger');
  const value = trigger?.getFirstValue();
  if (value instanceof ICAL.Time) return { minutesBefore: null, remindAt: new Date(value.toUnixTime() * 1000).toISOString() };
  if (!(value instanceof ICAL.Duration)) return null;
  const related = String(trigger?.getParameter('related') ?? 'START').toUpperCase();
  const minutes = -value.toSeconds() / 60;
  if (related !== 'START' || minutes < 0 || minutes > MAX_MINUTES || !Number.isInteger(minutes)) return null;
  return { minutesBefore: minutes, remindAt: null };
}
