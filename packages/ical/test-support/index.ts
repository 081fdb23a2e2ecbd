import ICAL from 'ical.js';

/**
 * What two iCalendar texts must agree on to be "the same object" for a client: per component
 * (VEVENT, VTODO; VTIMEZONE left out, since a server may send a fuller or shorter zone than it got)
 * every property as written, sorted by name, DTSTAMP aside (RFC 5545 lets a server restamp it), and
 * each sub-component (VALARM) as a sorted line list. Components are ordered master first, then by
 * RECURRENCE-ID, so folding, property order and component order do not matter.
 */
export function icalShape(text: string): Array<Record<string, string[]>> {
  const root = new ICAL.Component(ICAL.parse(text));
  return root
    .getAllSubcomponents()
    .filter((c) => c.name !== 'vtimezone')
    .map((c) => {
      const props: Record<string, string[]> = {};
      for (const p of c.getAllProperties()) if (p.name !== 'dtstamp') (props[p.name] ??= []).push(p.toICALString());
      for (const sub of c.getAllSubcomponents()) (props[`sub:${sub.name}`] ??= []).push(sub.getAllProperties().map((p) => p.toICALString()).sort().join('|'));
      for (const k of Object.keys(props)) props[k]!.sort();
      return props;
    })
    .sort((a, b) => String(a['recurrence-id'] ?? '').localeCompare(String(b['recurrence-id'] ?? '')));
}
