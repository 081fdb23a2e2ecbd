import ICAL from 'ical.js';
import { instantOfLocal, localMsOf } from '@calsync/domain/calendar';
import { ianaZoneOf } from './zones.js';

/** A record time read from iCalendar: a date (all-day) or an instant, and the IANA zone it was written in. */
export interface ReadTime {
  readonly allDay: boolean;
  /** `YYYY-MM-DD` when all-day, else an instant in `toISOString` form. */
  readonly value: string;
  /** The IANA zone of a TZID time; null for UTC, floating and dates. */
  readonly zone: string | null;
}

/** Local ms (floating) of an ICAL.Time's wall clock. */
export function wallOf(time: ICAL.Time): number {
  return Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
}

/** An ICAL.Time holding the wall clock of local ms. */
function timeOfWall(local: number, zone?: ICAL.Timezone): ICAL.Time {
  const d = new Date(local);
  return ICAL.Time.fromData(
    { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds() },
    zone,
  );
}

/**
 * The value of a DATE or DATE-TIME property as a record time. A TZID naming an IANA (or Windows)
 * zone is read in that zone by RFC 5545 §3.3.5 (the domain's own rules, as the expander reads
 * them); another TZID through the object's VTIMEZONE; a floating time in `floatingZone`.
 */
export function readTime(value: ICAL.Time, tzid: string | null, floatingZone: string): ReadTime {
  if (value.isDate) return { allDay: true, value: value.toString().slice(0, 10), zone: null };
  if (tzid !== null) {
    const zone = ianaZoneOf(tzid);
    if (zone !== null) return { allDay: false, value: new Date(instantOfLocal(wallOf(value), zone)).toISOString(), zone };
    return { allDay: false, value: new Date(value.toUnixTime() * 1000).toISOString(), zone: null };
  }
  if (value.zone === ICAL.Timezone.utcTimezone) return { allDay: false, value: new Date(wallOf(value)).toISOString(), zone: null };
  return { allDay: false, value: new Date(instantOfLocal(wallOf(value), floatingZone)).toISOString(), zone: null };
}

/** A date or date-time property's first value, its TZID, and why it cannot be read as written (null when it can). */
export interface TimeValue {
  readonly value: ICAL.Time;
  readonly tzid: string | null;
  readonly problem: string | null;
}

/** The first value of a date or date-time property, with its TZID and what is wrong with it. */
export function timeOf(component: ICAL.Component, name: string): TimeValue | null {
  const prop = component.getFirstProperty(name);
  if (prop === null) return null;
  const value = prop.getFirstValue();
  if (!(value instanceof ICAL.Time)) return null;
  const param = prop.getParameter('tzid');
  const tzid = typeof param === 'string' ? param : null;
  return { value, tzid, problem: timeProblem(name.toUpperCase(), prop, value, tzid) };
}

/**
 * Why a time cannot be read as written: a date that does not exist (ical.js reads 30 February as
 * 2 March and month 13 as January of the next year), a year before 1, or a TZID that is neither a
 * zone calsync knows nor defined by a VTIMEZONE of the object (RFC 5545 3.2.19), which ical.js
 * would read as UTC. Stored, any of them would show the event on another day or at another time.
 */
function timeProblem(name: string, prop: ICAL.Property, value: ICAL.Time, tzid: string | null): string | null {
  const raw: unknown = prop.jCal[3];
  if ((typeof raw === 'string' && raw !== value.toString()) || value.year < 1) {
    return `${name} ${typeof raw === 'string' ? raw : value.toString()} is no ${value.isDate ? 'date' : 'date-time'} of the calendar`;
  }
  if (tzid !== null && !value.isDate && ianaZoneOf(tzid) === null && !ICAL.TimezoneService.has(tzid)) {
    return `${name}: TZID ${tzid} names no time zone calsync knows, and the object has no VTIMEZONE for it`;
  }
  return null;
}

/**
 * A date or date-time property for a record time: VALUE=DATE for a date, the wall clock with
 * TZID when the event keeps a zone, else UTC.
 */
export function timeProperty(name: string, value: string, zone: string | null): ICAL.Property {
  const prop = new ICAL.Property(name);
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    prop.resetType('date');
    prop.setValue(ICAL.Time.fromDateString(value));
    return prop;
  }
  const instant = Date.parse(value);
  if (zone !== null && zone !== 'UTC') {
    prop.setParameter('tzid', zone);
    prop.setValue(timeOfWall(localMsOf(instant, zone)));
  } else {
    prop.setValue(timeOfWall(instant, ICAL.Timezone.utcTimezone));
  }
  return prop;
}

/** Several record times as one multi-valued property (EXDATE), in the series' form. */
export function timesProperty(name: string, values: readonly string[], zone: string | null): ICAL.Property {
  const first = timeProperty(name, values[0]!, zone);
  const times = values.map((v) => timeProperty(name, v, zone).getFirstValue());
  first.setValues(times);
  return first;
}
