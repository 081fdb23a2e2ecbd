import ICAL from 'ical.js';
import { findIana } from 'windows-iana';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * What two iCalendar texts must agree on to be "the same object" for a client: per component
 * (VEVENT, VTODO; VTIMEZONE left out, since a server may send a fuller or shorter zone than it got)
 * every property as written, sorted by name, DTSTAMP aside (RFC 5545 lets a server restamp it), and
 * each sub-component (VALARM) as a sorted line list. Components are ordered master first, then by
 * RECURRENCE-ID, so folding, property order and component order do not matter.
 */
export function icalShape(text: string, options: { readonly windowsZones?: boolean } = {}): Array<Record<string, string[]>> {
  const root = new ICAL.Component(ICAL.parse(text));
  if (options.windowsZones) windowsZonesToIana(root);
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

/** The fidelity corpus: .ics files in the shapes Google Calendar, Apple Calendar and Reminders, Outlook, Thunderbird and DAVx5 write (file name, text with CRLF line ends). */
export function corpusFiles(): Array<{ name: string; text: string }> {
  const dir = fileURLToPath(new URL('./corpus/', import.meta.url));
  return readdirSync(dir)
    .filter((f) => f.endsWith('.ics'))
    .sort()
    .map((name) => ({ name, text: readFileSync(`${dir}${name}`, 'utf8').replace(/\r?\n/g, '\r\n') }));
}

/**
 * The normalisation `icalShape(text, { windowsZones: true })` applies: a TZID that is a Windows zone
 * name (Outlook's "W. Europe Standard Time") becomes the IANA zone the windows-iana table maps it
 * to, the wall-clock times staying as they are. A server that writes such times in the IANA zone
 * keeps their instants and their meaning.
 */
function windowsZonesToIana(root: ICAL.Component): void {
  for (const c of root.getAllSubcomponents()) {
    for (const p of c.getAllProperties()) {
      const tzid = p.getParameter('tzid');
      const iana = typeof tzid === 'string' ? findIana(tzid)?.[0] : undefined;
      if (iana !== undefined) p.setParameter('tzid', iana);
    }
  }
}

/**
 * A weekly stand-up in Berlin as Thunderbird writes it: VTIMEZONE, TZID times, RRULE with BYDAY,
 * an EXDATE, one occurrence moved (RECURRENCE-ID), an alarm, and what no field holds (ATTENDEE,
 * CATEGORIES, SEQUENCE, X-MOZ-GENERATION). 30 March 2026 is the Monday after the change to summer time.
 */
export function seriesFixture(uid: string): string {
  return [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Mozilla.org/NONSGML Mozilla Calendar V1.1//EN',
  'BEGIN:VTIMEZONE',
  'TZID:Europe/Berlin',
  'BEGIN:DAYLIGHT',
  'TZOFFSETFROM:+0100',
  'TZOFFSETTO:+0200',
  'TZNAME:CEST',
  'DTSTART:19700329T020000',
  'RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3',
  'END:DAYLIGHT',
  'BEGIN:STANDARD',
  'TZOFFSETFROM:+0200',
  'TZOFFSETTO:+0100',
  'TZNAME:CET',
  'DTSTART:19701025T030000',
  'RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10',
  'END:STANDARD',
  'END:VTIMEZONE',
  'BEGIN:VEVENT',
  `UID:${uid}`,
  'DTSTAMP:20260101T000000Z',
  'SEQUENCE:2',
  'SUMMARY:Stand-up',
  'CATEGORIES:Work',
  'ATTENDEE;CN=Bob;PARTSTAT=ACCEPTED:mailto:bob@example.org',
  'X-MOZ-GENERATION:3',
  'DTSTART;TZID=Europe/Berlin:20260302T090000',
  'DTEND;TZID=Europe/Berlin:20260302T091500',
  'RRULE:FREQ=WEEKLY;BYDAY=MO,WE',
  'EXDATE;TZID=Europe/Berlin:20260304T090000',
  'BEGIN:VALARM',
  'ACTION:DISPLAY',
  'DESCRIPTION:Stand-up',
  'TRIGGER:-PT10M',
  'END:VALARM',
  'END:VEVENT',
  'BEGIN:VEVENT',
  `UID:${uid}`,
  'DTSTAMP:20260101T000000Z',
  'RECURRENCE-ID;TZID=Europe/Berlin:20260330T090000',
  'SUMMARY:Stand-up (late)',
  'DTSTART;TZID=Europe/Berlin:20260330T110000',
  'DTEND;TZID=Europe/Berlin:20260330T111500',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');
}
