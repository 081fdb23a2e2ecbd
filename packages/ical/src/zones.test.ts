import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { parseCalendar, renderCalendar } from './calendar-object.js';
import { vtimezoneOf } from './zones.js';

/** The UTC offset, in minutes, that ical.js reads for `local` (a wall time) through the VTIMEZONE of `zone`. */
function offsetThrough(zone: string, local: string): number {
  const tz = new ICAL.Timezone(vtimezoneOf(zone)!);
  const time = ICAL.Time.fromDateTimeString(local);
  time.zone = tz;
  return tz.utcOffset(time) / 60;
}

describe('vtimezoneOf', () => {
  it('answers a zone written in another casing or as a link with the VTIMEZONE of the zone it names, under the name written', () => {
    for (const [zone, summer, winter] of [
      ['Europe/Berlin', 120, 60],
      ['europe/berlin', 120, 60],
      ['US/Pacific', -420, -480],
      ['america/new_york', -240, -300],
    ] as const) {
      expect(vtimezoneOf(zone)?.getFirstPropertyValue('tzid')).toBe(zone);
      expect([offsetThrough(zone, '2027-07-01T12:00:00'), offsetThrough(zone, '2027-01-15T12:00:00')]).toEqual([summer, winter]);
    }
  });

  it('has none for UTC, however it is written, nor for a name that is no zone', () => {
    for (const zone of ['UTC', 'Etc/UTC', 'utc', 'Not/A_Zone']) expect(vtimezoneOf(zone)).toBeNull();
  });

  it('gives every TZID of a calendar object its VTIMEZONE', () => {
    const event = (uid: string, timezone: string) => ({
      root: { uid, fields: { title: uid, startTime: '2027-03-29T08:00:00.000Z', endTime: '2027-03-29T09:00:00.000Z', allDay: false, timezone } },
      overrides: [],
      reminders: [],
    });
    const text = renderCalendar({ events: [event('lower', 'europe/berlin'), event('utc', 'Etc/UTC')], name: 'Home' });
    const root = new ICAL.Component(ICAL.parse(text));
    const tzids = new Set(root.getAllSubcomponents('vevent').flatMap((v) => v.getAllProperties().map((p) => p.getParameter('tzid')).filter((t) => typeof t === 'string')));
    expect([...tzids]).toEqual(['europe/berlin']);
    expect(root.getAllSubcomponents('vtimezone').map((z) => z.getFirstPropertyValue('tzid'))).toEqual(['europe/berlin']);
    // A UTC event is written in UTC ("Z"), however its zone is spelled.
    const utc = root.getAllSubcomponents('vevent').find((v) => v.getFirstPropertyValue('uid') === 'utc')!;
    expect(utc.getFirstProperty('dtstart')?.toICALString()).toBe('DTSTART:20270329T080000Z');
  });
});

describe('TZIDs an object defines itself', () => {
  const object = (uid: string, withZone: boolean) =>
    [
      'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:x',
      ...(withZone ? ['BEGIN:VTIMEZONE', 'TZID:Custom/Plus5', 'BEGIN:STANDARD', 'DTSTART:19700101T000000', 'TZOFFSETFROM:+0500', 'TZOFFSETTO:+0500', 'END:STANDARD', 'END:VTIMEZONE'] : []),
      'BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20260101T000000Z', 'SUMMARY:x', 'DTSTART;TZID=Custom/Plus5:20260301T100000', 'DTEND;TZID=Custom/Plus5:20260301T110000', 'END:VEVENT',
      'END:VCALENDAR', '',
    ].join('\r\n');

  it('read its times through its own VTIMEZONE, and never another object\'s: one without the definition is refused, not read as UTC', () => {
    const defined = parseCalendar(object('with', true));
    expect(defined.objects.map((o) => (o.kind === 'event' ? o.root.fields.startTime : null))).toEqual(['2026-03-01T05:00:00.000Z']);
    const undefinedZone = parseCalendar(object('without', false));
    expect(undefinedZone.objects).toEqual([]);
    expect(undefinedZone.skipped.map((s) => s.reason)).toEqual([expect.stringContaining('TZID Custom/Plus5 names no time zone')]);
  });
});
