import type { Occurrence } from '@calsync/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { occurrencesOn, startOfDay } from './days.js';
import { localDate } from './format.js';

// The phone's day list in New York, across the end of daylight saving time (Sunday 1 November
// 2026 has 25 hours there: midnight is 04:00Z, the next midnight 05:00Z).
const ZONE = 'America/New_York';
let before: string | undefined;
beforeAll(() => {
  before = process.env.TZ;
  process.env.TZ = ZONE;
});
afterAll(() => {
  if (before === undefined) delete process.env.TZ;
  else process.env.TZ = before;
});

const timed = (title: string, start: string, end: string): Occurrence => ({
  eventUid: title,
  seriesUid: null,
  calendarUid: 'cal',
  title,
  start,
  end,
  allDay: false,
  timezone: ZONE,
  originalStart: null,
  overridden: false,
});
const allDay = (title: string, start: string, end: string): Occurrence => ({ ...timed(title, start, end), allDay: true, timezone: null });
const titlesOn = (list: readonly Occurrence[], day: string) => occurrencesOn(list, day).map((o) => o.title);

describe('the occurrences a phone lists under a day of its month grid', () => {
  it('reads days in the viewer\'s zone, the 25-hour day of the clock change included', () => {
    expect(new Date().getTimezoneOffset()).not.toBe(0);
    expect(startOfDay('2026-11-01').toISOString()).toBe('2026-11-01T04:00:00.000Z');
    expect(startOfDay('2026-11-02').toISOString()).toBe('2026-11-02T05:00:00.000Z');
    expect(localDate(new Date('2026-11-02T04:30:00Z'))).toBe('2026-11-01');
    // 23:30 on the 25-hour day: a day taken as 24 hours from midnight would put it on the 2nd.
    const late = timed('late', '2026-11-02T04:30:00Z', '2026-11-02T04:45:00Z');
    expect(titlesOn([late], '2026-11-01')).toEqual(['late']);
    expect(titlesOn([late], '2026-11-02')).toEqual([]);
  });

  it('lists a timed occurrence on every day it overlaps, and one without length on the day it starts', () => {
    const night = timed('night', '2026-11-03T03:00:00Z', '2026-11-03T06:00:00Z'); // 22:00 on the 2nd to 01:00 on the 3rd
    const untilMidnight = timed('until midnight', '2026-11-03T04:00:00Z', '2026-11-03T05:00:00Z'); // 23:00 to 00:00
    const instant = timed('instant', '2026-11-03T05:00:00Z', '2026-11-03T05:00:00Z'); // 00:00 on the 3rd
    const list = [night, untilMidnight, instant];
    expect(titlesOn(list, '2026-11-02')).toEqual(['night', 'until midnight']);
    expect(titlesOn(list, '2026-11-03')).toEqual(['night', 'instant']);
    expect(titlesOn(list, '2026-11-04')).toEqual([]);
  });

  it('lists an all-day occurrence on its dates up to its exclusive end, all-day ones first, then by start', () => {
    const trip = allDay('trip', '2026-11-01', '2026-11-03');
    const early = timed('early', '2026-11-02T13:00:00Z', '2026-11-02T14:00:00Z');
    const b = timed('b', '2026-11-02T15:00:00Z', '2026-11-02T16:00:00Z');
    const a = timed('a', '2026-11-02T15:00:00Z', '2026-11-02T15:30:00Z');
    const list = [b, early, trip, a];
    expect(titlesOn(list, '2026-10-31')).toEqual([]);
    expect(titlesOn(list, '2026-11-01')).toEqual(['trip']);
    expect(titlesOn(list, '2026-11-02')).toEqual(['trip', 'early', 'a', 'b']);
    expect(titlesOn(list, '2026-11-03')).toEqual([]);
  });
});
