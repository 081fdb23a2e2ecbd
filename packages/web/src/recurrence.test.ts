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
    const repeat = parseRepeat('FREQ=WEEKLY');
    expect(weeklyDays(repeat, 'WE')).toEqual(['WE']);
    expect(buildRrule(repeat, { allDay: false, zone: 'UTC' })).toBe('FREQ=WEEKLY');
  });

  it("shows the rule's own days when it has BYDAY, whatever the start", () => {
    expect(weeklyDays(parseRepeat('FREQ=WEEKLY;BYDAY=MO,FR'), 'WE')).toEqual(['MO', 'FR']);
  });

  it('adds a checked day to the shown one, so both are written', () => {
    const repeat = parseRepeat('FREQ=WEEKLY');
    const next = { ...repeat, days: [...weeklyDays(repeat, 'TU'), 'TH'] };
    expect(buildRrule(next, { allDay: false, zone: 'UTC' })).toBe('FREQ=WEEKLY;BYDAY=TU,TH');
  });

  it('shows no day when the start is not a valid time yet', () => {
    expect(weeklyDays(parseRepeat('FREQ=WEEKLY'), null)).toEqual([]);
  });
});
