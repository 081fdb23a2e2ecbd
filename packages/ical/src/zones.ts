import ICAL from 'ical.js';
import { isValidTimezone } from '@calsync/domain/records';
import { tzlib_get_ical_block } from 'timezones-ical-library';
import { findIana } from 'windows-iana';

/**
 * `fn` remembered by its argument, in a map cleared when it holds `max` names: zone names and TZIDs
 * are few, but a stored zone may be spelt in any casing, so the map must not grow without bound.
 */
function remembered<T>(fn: (key: string) => T, max = 1000): (key: string) => T {
  const known = new Map<string, T>();
  return (key) => {
    if (known.has(key)) return known.get(key) as T;
    const value = fn(key);
    if (known.size >= max) known.clear();
    known.set(key, value);
    return value;
  };
}

/**
 * The VTIMEZONE of an IANA zone (its current rules, from timezones-ical-library, as calendar
 * servers send them), or null for UTC and zones the library does not know. A name the library
 * does not know but the runtime reads as another (any casing, "europe/berlin"; a link such as
 * "US/Pacific") gets the VTIMEZONE of the zone the runtime reads it as, under the name asked for:
 * a TZID must name a VTIMEZONE of its object (RFC 5545, 3.2.19), and the event keeps its zone as
 * written.
 */
export function vtimezoneOf(zone: string): ICAL.Component | null {
  const component = storedVtimezone(zone);
  return component === null ? null : new ICAL.Component(structuredClone(component.toJSON()));
}

/** `vtimezoneOf`'s component, read once a name (callers get copies). */
const storedVtimezone = remembered((zone: string): ICAL.Component | null => {
  const canonical = canonicalZone(zone);
  if (canonical === 'UTC') return null;
  const component = libraryVtimezone(zone) ?? (canonical === null ? null : libraryVtimezone(canonical));
  component?.updatePropertyWithValue('tzid', zone);
  return component;
});

function libraryVtimezone(zone: string): ICAL.Component | null {
  try {
    const [block] = tzlib_get_ical_block(zone) as [string, string];
    return block ? new ICAL.Component(ICAL.parse(`BEGIN:VCALENDAR\r\n${block}\r\nEND:VCALENDAR`)).getFirstSubcomponent('vtimezone') : null;
  } catch {
    return null;
  }
}

/** The name the runtime reads `zone` as ("europe/berlin" → "Europe/Berlin", "Etc/UTC" → "UTC"), or null for no zone (asked for every event written). */
export const canonicalZone = remembered((zone: string): string | null => {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
});

/**
 * The IANA zone a TZID names: an IANA name itself (also with the `/mozilla.org/…/` or
 * `/citadel.org/…/` prefixes some producers add), a Windows name (Outlook's "W. Europe Standard
 * Time"), else null (the times are then read through the object's own VTIMEZONE). Every time
 * property of every object written or read asks; TZIDs are few.
 */
export const ianaZoneOf = remembered(ianaZoneOfUncached);

function ianaZoneOfUncached(tzid: string): string | null {
  const stripped = tzid.replace(/^\/[^/]+\.(org|com)\/[^/]+\//, '').replace(/^\//, '');
  if (isValidTimezone(stripped)) return stripped;
  const windows = findIana(tzid);
  const first = windows?.[0];
  return first !== undefined && isValidTimezone(first) ? first : null;
}
