import { describe, expect, it } from 'vitest';
import { buildRrule, parseRepeat, weekdayOf, weeklyDays } from './recurrence.js';

// The weekday a weekly rule without BYDAY repeats on, as the repeat editor shows it.

describe('weekdayOf', () => {
  it('reads a date as it stands, whatever the zone', () => {
    expect(weekdayOf('2026-12-07', 'Pacific/Kiritimati')).toBe('MO');
    expect(weekdayOf('2026-12-13', 'America/Los_Angeles')).toBe('SU');
    expect(weekdayOf('2024-02-29', 'UTC')).toBe('TH');
  });

  it("reads an instant in the event's zone, where its rule is evaluated", () => {
    // Monday 23:30 UTC is already Tuesday in Berlin and still Monday in New York.
    expect(weekdayOf('2026-12-07T23:30:00.000Z', 'UTC')).toBe('MO');
    expect(weekdayOf('2026-12-07T23:30:00.000Z', 'Europe/Berlin')).toBe('TU');
    expect(weekdayOf('2026-12-08T03:30:00.000Z', 'America/New_York')).toBe('MO');
    // Across the end of summer time in Berlin (25 October 2026, 03:00 back to 02:00).
    expect(weekdayOf('2026-10-24T22:30:00.000Z', 'Europe/Berlin')).toBe('SU');
  });

  it('has no day for an empty or invalid start', () => {
    expect(weekdayOf('', 'UTC')).toBeNull();
    expect(weekdayOf(null, 'UTC')).toBeNull();
    expect(weekdayOf('not a time', 'UTC')).toBeNull();
  });
});

describe('weeklyDays', () => {
  it("shows the start's weekday for a weekly rule without BYDAY, and writes no BYDAY for it", () => {
    const repeat = parseRepeat('FREQ=WEEKLY', 'UTC');
    expect(weeklyDays(repeat, 'WE')).toEqual(['WE']);
    expect(buildRrule(repeat, { allDay: false, zone: 'UTC' })).toBe('FREQ=WEEKLY');
  });

  it("shows the rule's own days when it has BYDAY, whatever the start", () => {
    expect(weeklyDays(parseRepeat('FREQ=WEEKLY;BYDAY=MO,FR', 'UTC'), 'WE')).toEqual(['MO', 'FR']);
  });

  it('adds a checked day to the shown one, so both are written', () => {
    const repeat = parseRepeat('FREQ=WEEKLY', 'UTC');
    const next = { ...repeat, days: [...weeklyDays(repeat, 'TU'), 'TH'] };
    expect(buildRrule(next, { allDay: false, zone: 'UTC' })).toBe('FREQ=WEEKLY;BYDAY=TU,TH');
  });

  it('shows no day when the start is not a valid time yet', () => {
    expect(weeklyDays(parseRepeat('FREQ=WEEKLY', 'UTC'), null)).toEqual([]);
  });
});

// The "End date" of a series is its last day in the event's zone; a timed series' UNTIL is in UTC.
describe('the End date', () => {
  it('reads back as the day it was written in any zone, west of UTC too', () => {
    for (const zone of ['America/New_York', 'America/Los_Angeles', 'Europe/Berlin', 'Pacific/Auckland', 'Pacific/Kiritimati', 'UTC']) {
      const repeat = { ...parseRepeat('FREQ=DAILY', zone), ends: 'on' as const, until: '2026-12-10' };
      const rule = buildRrule(repeat, { allDay: false, zone });
      expect([zone, parseRepeat(rule, zone).until]).toEqual([zone, '2026-12-10']);
      // Saved again unchanged, the rule stays the same (before, New York's end moved a day later at each save).
      expect([zone, buildRrule(parseRepeat(rule, zone), { allDay: false, zone })]).toEqual([zone, rule]);
    }
  });

  it("writes the last second of the day in the event's zone, in UTC", () => {
    const daily = (until: string) => ({ ...parseRepeat('FREQ=DAILY', 'UTC'), ends: 'on' as const, until });
    expect(buildRrule(daily('2026-12-10'), { allDay: false, zone: 'America/New_York' })).toBe('FREQ=DAILY;UNTIL=20261211T045959Z');
    // Auckland leaves summer time at 03:00 on 5 April 2026: 23:59:59 on the 4th is still +13.
    expect(buildRrule(daily('2026-04-04'), { allDay: false, zone: 'Pacific/Auckland' })).toBe('FREQ=DAILY;UNTIL=20260404T105959Z');
    expect(buildRrule(daily('2026-04-04'), { allDay: true, zone: 'Pacific/Auckland' })).toBe('FREQ=DAILY;UNTIL=20260404');
  });

  it("shows another client's UNTIL as the day it falls on in the event's zone", () => {
    // 17:00 in New York on 10 December is 22:00 UTC; 21:00 is 02:00 UTC on the 11th.
    expect(parseRepeat('FREQ=DAILY;UNTIL=20261210T220000Z', 'America/New_York').until).toBe('2026-12-10');
    expect(parseRepeat('FREQ=DAILY;UNTIL=20261211T020000Z', 'America/New_York').until).toBe('2026-12-10');
    expect(parseRepeat('FREQ=DAILY;UNTIL=20261211T020000Z', 'Europe/Berlin').until).toBe('2026-12-11');
    expect(parseRepeat('FREQ=DAILY;UNTIL=20261210', 'Pacific/Auckland').until).toBe('2026-12-10');
  });

  it('keeps a WKST as written, and shows an unreadable UNTIL as a custom rule', () => {
    const biweekly = 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SU;WKST=SU';
    expect(buildRrule({ ...parseRepeat(biweekly, 'UTC'), custom: null }, { allDay: false, zone: 'UTC' })).toBe('FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SU;WKST=SU');
    expect(parseRepeat('FREQ=DAILY;UNTIL=2026-12-10', 'UTC').custom).toBe('FREQ=DAILY;UNTIL=2026-12-10');
  });
});
