import ICAL from 'ical.js';
import { isValidTimezone } from '@calsync/domain/records';
import { tzlib_get_ical_block } from 'timezones-ical-library';
import { findIana } from 'windows-iana';

const VTIMEZONES = new Map<string, ICAL.Component | null>();

/**
 * The VTIMEZONE of an IANA zone (its current rules, from timezones-ical-library, as calendar
 * servers send them), or null for UTC and zones the library does not know. A name the library
 * does not know but the runtime reads as another (any casing, "europe/berlin"; a link such as
 * "US/Pacific") gets the VTIMEZONE of the zone the runtime reads it as, under the name asked for:
 * a TZID must name a VTIMEZONE of its object (RFC 5545, 3.2.19), and the event keeps its zone as
 * written.
 */
export function vtimezoneOf(zone: string): ICAL.Component | null {
  let component = VTIMEZONES.get(zone);
  if (component === undefined) {
    const canonical = canonicalZone(zone);
    component = canonical === 'UTC' ? null : (libraryVtimezone(zone) ?? (canonical === null ? null : libraryVtimezone(canonical)));
    component?.updatePropertyWithValue('tzid', zone);
    VTIMEZONES.set(zone, component);
  }
  return component === null ? null : new ICAL.Component(structuredClone(component.toJSON()));
}

function libraryVtimezone(zone: string): ICAL.Component | null {
  try {
    const [block] = tzlib_get_ical_block(zone) as [string, string];
    return block ? new ICAL.Component(ICAL.parse(`BEGIN:VCALENDAR\r\n${block}\r\nEND:VCALENDAR`)).getFirstSubcomponent('vtimezone') : null;
  } catch {
    return null;
  }
}

/** The name the runtime reads `zone` as ("europe/berlin" → "Europe/Berlin", "Etc/UTC" → "UTC"), or null for no zone. */
export function canonicalZone(zone: string): string | null {
  let canonical = CANONICAL.get(zone);
  if (canonical === undefined) {
    try {
      canonical = new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
    } catch {
      canonical = null;
    }
    if (CANONICAL.size >= 1000) CANONICAL.clear();
    CANONICAL.set(zone, canonical);
  }
  return canonical;
}

/** `canonicalZone` by name (every event written asks; zones are few). */
const CANONICAL = new Map<string, string | null>();

/**
 * The IANA zone a TZID names: an IANA name itself (also with the `/mozilla.org/…/` or
 * `/citadel.org/…/` prefixes some producers add), a Windows name (Outlook's "W. Europe Standard
 * Time"), else null (the times are then read through the object's own VTIMEZONE).
 */
export function ianaZoneOf(tzid: string): string | null {
  let zone = IANA_OF.get(tzid);
  if (zone === undefined) {
    zone = ianaZoneOfUncached(tzid);
    if (IANA_OF.size >= 1000) IANA_OF.clear();
    IANA_OF.set(tzid, zone);
  }
  return zone;
}

/** `ianaZoneOf` by TZID (every time property of every object written or read asks; TZIDs are few). */
const IANA_OF = new Map<string, string | null>();

function ianaZoneOfUncached(tzid: string): string | null {
  const stripped = tzid.replace(/^\/[^/]+\.(org|com)\/[^/]+\//, '').replace(/^\//, '');
  if (isValidTimezone(stripped)) return stripped;
  const windows = findIana(tzid);
  const first = windows?.[0];
  return first !== undefined && isValidTimezone(first) ? first : null;
}
