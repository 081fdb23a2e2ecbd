import ICAL from 'ical.js';
import { isValidTimezone } from '@calsync/domain/records';
import { tzlib_get_ical_block } from 'timezones-ical-library';
import { findIana } from 'windows-iana';

const VTIMEZONES = new Map<string, ICAL.Component | null>();

/**
 * The VTIMEZONE of an IANA zone (its current rules, from timezones-ical-library, as calendar
 * servers send them), or null for UTC and zones the library does not know.
 */
export function vtimezoneOf(zone: string): ICAL.Component | null {
  let component = VTIMEZONES.get(zone);
  if (component === undefined) {
    component = null;
    if (zone !== 'UTC' && zone !== 'Etc/UTC') {
      try {
        const [block] = tzlib_get_ical_block(zone) as [string, string];
        if (block) component = new ICAL.Component(ICAL.parse(`BEGIN:VCALENDAR\r\n${block}\r\nEND:VCALENDAR`)).getFirstSubcomponent('vtimezone');
      } catch {
        component = null;
      }
    }
    VTIMEZONES.set(zone, component);
  }
  return component === null ? null : new ICAL.Component(structuredClone(component.toJSON()));
}

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
