import { describe, expect, it } from 'vitest';
import type { FieldValues } from '../records/types.js';
import { expandOccurrences } from './expand-occurrences.js';
import { expandRule } from './rule-expansion.js';
import { instantOfLocal } from './zone.js';

const event = (uid: string, fields: Partial<Record<string, string | boolean | null>>): { uid: string; fields: FieldValues } => ({
  uid,
  fields: { calendarUid: 'cal', title: uid, allDay: false, timezone: null, rrule: null, exdate: null, recurringEventUid: null, originalStartTime: null, ...fields },
});

/** The local (floating) starts of an RFC 5545 §3.8.5.3 example, DTSTART 19970902T090000 America/New_York unless given. */
function example(rule: string, start = '1997-09-02T09:00:00', to = '2000-01-01T00:00:00', limit = 200): string[] {
  const local = Date.parse(`${start}Z`);
  return expandRule({ rule, start: local, toLocal: (i) => i - 4 * 3_600_000, from: local, to: Date.parse(`${to}Z`), limit }).map((t) => new Date(t).toISOString().slice(0, 16));
}

describe('RFC 5545 §3.8.5.3 examples', () => {
  it('daily for 10 occurrences; every other day; every 10 days, 5 occurrences', () => {
    expect(example('FREQ=DAILY;COUNT=10')).toHaveLength(10);
    expect(example('FREQ=DAILY;INTERVAL=10;COUNT=5').map((d) => d.slice(5, 10))).toEqual(['09-02', '09-12', '09-22', '10-02', '10-12']);
  });
  it('weekly on Tuesday and Thursday for five weeks; every other week on MO, WE, FR until 24 December 1997', () => {
    expect(example('FREQ=WEEKLY;COUNT=10;WKST=SU;BYDAY=TU,TH').map((d) => d.slice(5, 10))).toEqual([
      '09-02', '09-04', '09-09', '09-11', '09-16', '09-18', '09-23', '09-25', '09-30', '10-02',
    ]);
    const everyOther = example('FREQ=WEEKLY;INTERVAL=2;UNTIL=19971224T000000Z;WKST=SU;BYDAY=MO,WE,FR');
    expect(everyOther).toHaveLength(25);
    expect(everyOther.at(-1)).toBe('1997-12-22T09:00');
  });
  it('monthly on the first Friday for 10 occurrences; on the second-to-last Monday for 6 months', () => {
    expect(example('FREQ=MONTHLY;COUNT=10;BYDAY=1FR', '1997-09-05T09:00:00').map((d) => d.slice(0, 10))).toEqual([
      '1997-09-05', '1997-10-03', '1997-11-07', '1997-12-05', '1998-01-02', '1998-02-06', '1998-03-06', '1998-04-03', '1998-05-01', '1998-06-05',
    ]);
    expect(example('FREQ=MONTHLY;COUNT=6;BYDAY=-2MO', '1997-09-22T09:00:00').map((d) => d.slice(0, 10))).toEqual([
      '1997-09-22', '1997-10-20', '1997-11-17', '1997-12-22', '1998-01-19', '1998-02-16',
    ]);
  });
  it('monthly on the third-to-the-last day; the first and last day; every Friday the 13th', () => {
    expect(example('FREQ=MONTHLY;BYMONTHDAY=-3;COUNT=6', '1997-09-28T09:00:00').map((d) => d.slice(0, 10))).toEqual([
      '1997-09-28', '1997-10-29', '1997-11-28', '1997-12-29', '1998-01-29', '1998-02-26',
    ]);
    expect(example('FREQ=MONTHLY;COUNT=10;BYMONTHDAY=1,-1').map((d) => d.slice(0, 10))).toEqual([
      '1997-09-02', '1997-09-30', '1997-10-01', '1997-10-31', '1997-11-01', '1997-11-30', '1997-12-01', '1997-12-31', '1998-01-01', '1998-01-31',
    ]);
    expect(example('FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13', '1997-09-02T09:00:00', '2000-12-31T00:00:00').map((d) => d.slice(0, 10))).toEqual([
      '1997-09-02', '1998-02-13', '1998-03-13', '1998-11-13', '1999-08-13', '2000-10-13',
    ]);
  });
  it('yearly in June and July for 10 occurrences; the 20th Monday; Monday of week 20; every Thursday in March', () => {
    expect(example('FREQ=YEARLY;COUNT=10;BYMONTH=6,7', '1997-06-10T09:00:00', '2002-01-01T00:00:00')).toHaveLength(10);
    expect(example('FREQ=YEARLY;BYDAY=20MO', '1997-05-19T09:00:00').map((d) => d.slice(0, 10))).toEqual(['1997-05-19', '1998-05-18', '1999-05-17']);
    expect(example('FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO', '1997-05-12T09:00:00').map((d) => d.slice(0, 10))).toEqual(['1997-05-12', '1998-05-11', '1999-05-17']);
    expect(example('FREQ=YEARLY;BYMONTH=3;BYDAY=TH', '1997-03-13T09:00:00', '1998-01-01T00:00:00').map((d) => d.slice(0, 10))).toEqual([
      '1997-03-13', '1997-03-20', '1997-03-27',
    ]);
  });
  it('the third instance of TU, WE or TH for 3 months; the second-to-last weekday of the month', () => {
    expect(example('FREQ=MONTHLY;COUNT=3;BYDAY=TU,WE,TH;BYSETPOS=3', '1997-09-04T09:00:00').map((d) => d.slice(0, 10))).toEqual([
      '1997-09-04', '1997-10-07', '1997-11-06',
    ]);
    expect(example('FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2', '1997-09-29T09:00:00', '1998-04-01T00:00:00').map((d) => d.slice(0, 10))).toEqual([
      '1997-09-29', '1997-10-30', '1997-11-27', '1997-12-30', '1998-01-29', '1998-02-26', '1998-03-30',
    ]);
  });
  it('an invalid date (30 February) is skipped, never rolled over', () => {
    expect(example('FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5', '2007-01-15T09:00:00', '2008-01-01T00:00:00').map((d) => d.slice(0, 10))).toEqual([
      '2007-01-15', '2007-01-30', '2007-02-15', '2007-03-15', '2007-03-30',
    ]);
  });
  it('a BYSETPOS past the set\'s size picks nothing (the rrule package would pick the first)', () => {
    expect(example('FREQ=MONTHLY;BYDAY=MO;BYMONTHDAY=1,2,3,4,5,6,7;BYSETPOS=-2;COUNT=3', '1997-09-01T09:00:00')).toEqual(['1997-09-01T09:00']);
  });
  it('a BYDAY that mixes plain and ordinal weekdays is their union', () => {
    expect(example('FREQ=MONTHLY;BYDAY=1MO,FR;COUNT=5', '1997-09-01T09:00:00').map((d) => d.slice(0, 10))).toEqual([
      '1997-09-01', '1997-09-05', '1997-09-12', '1997-09-19', '1997-09-26',
    ]);
  });
});

describe('daylight-saving edges (RFC 5545 §3.3.5)', () => {
  const window = { from: '2026-01-01T00:00:00Z', to: '2027-01-01T00:00:00Z' };
  it('a weekly 09:00 Berlin series made in January is at 08:00Z in winter and 07:00Z in summer', () => {
    const series = event('w', { startTime: '2026-01-05T08:00:00.000Z', endTime: '2026-01-05T09:00:00.000Z', timezone: 'Europe/Berlin', rrule: 'FREQ=WEEKLY' });
    const starts = expandOccurrences([series], () => null, window).occurrences.map((o) => o.start);
    expect(starts).toContain('2026-01-12T08:00:00.000Z');
    expect(starts).toContain('2026-07-06T07:00:00.000Z');
    expect(starts).toContain('2026-11-02T08:00:00.000Z');
  });
  it('02:30 on a spring-forward day is read with the offset before the gap (03:30 local)', () => {
    const daily = event('d', { startTime: '2026-03-26T01:30:00.000Z', endTime: '2026-03-26T02:00:00.000Z', timezone: 'Europe/Berlin', rrule: 'FREQ=DAILY;COUNT=5' });
    expect(expandOccurrences([daily], () => null, window).occurrences.map((o) => o.start)).toEqual([
      '2026-03-26T01:30:00.000Z', '2026-03-27T01:30:00.000Z', '2026-03-28T01:30:00.000Z', '2026-03-29T01:30:00.000Z', '2026-03-30T00:30:00.000Z',
    ]);
  });
  it('01:30 on a fall-back day is the first of the two (EDT)', () => {
    const daily = event('d', { startTime: '2026-10-30T05:30:00.000Z', endTime: '2026-10-30T06:00:00.000Z', timezone: 'America/New_York', rrule: 'FREQ=DAILY;COUNT=4' });
    expect(expandOccurrences([daily], () => null, window).occurrences.map((o) => o.start)).toEqual([
      '2026-10-30T05:30:00.000Z', '2026-10-31T05:30:00.000Z', '2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z',
    ]);
  });
  it('an UNTIL in the repeated hour keeps the occurrence that starts before it', () => {
    // 01:15 New York daily; UNTIL 01:40 EST on 1 Nov 2026 (06:40Z): the 01:15 EDT occurrence (05:15Z) is in.
    const daily = event('d', { startTime: '2026-10-30T05:15:00.000Z', endTime: '2026-10-30T05:45:00.000Z', timezone: 'America/New_York', rrule: 'FREQ=DAILY;UNTIL=20261101T064000Z' });
    expect(expandOccurrences([daily], () => null, window).occurrences.map((o) => o.start)).toEqual([
      '2026-10-30T05:15:00.000Z', '2026-10-31T05:15:00.000Z', '2026-11-01T05:15:00.000Z',
    ]);
    const early = event('e', { startTime: '2026-10-30T05:15:00.000Z', endTime: '2026-10-30T05:45:00.000Z', timezone: 'America/New_York', rrule: 'FREQ=DAILY;UNTIL=20261101T050000Z' });
    expect(expandOccurrences([early], () => null, window).occurrences).toHaveLength(2);
  });
  it('Kolkata (+05:30) and Chatham (+12:45/+13:45) keep their wall-clock time', () => {
    const chatham = event('c', { startTime: new Date(instantOfLocal(Date.UTC(2026, 0, 5, 9), 'Pacific/Chatham')).toISOString(), endTime: new Date(instantOfLocal(Date.UTC(2026, 0, 5, 10), 'Pacific/Chatham')).toISOString(), timezone: 'Pacific/Chatham', rrule: 'FREQ=MONTHLY;COUNT=6' });
    const starts = expandOccurrences([chatham], () => null, window).occurrences.map((o) => o.start);
    expect(starts[0]).toBe('2026-01-04T19:15:00.000Z');
    expect(starts[4]).toBe('2026-05-04T20:15:00.000Z');
  });
});

describe('all-day events, overrides, exdates, the window', () => {
  it('an all-day event on 10 March is on 10 March wherever the viewer is', () => {
    const day = event('a', { allDay: true, startTime: '2026-03-10', endTime: '2026-03-11' });
    for (const tz of ['America/Los_Angeles', 'Europe/Berlin', 'Pacific/Chatham']) {
      const { occurrences } = expandOccurrences([day], () => null, { from: '2026-03-01T00:00:00Z', to: '2026-04-01T00:00:00Z', tz });
      expect(occurrences.map((o) => [o.start, o.end, o.allDay])).toEqual([['2026-03-10', '2026-03-11', true]]);
    }
  });
  it('an override replaces its occurrence, moves with its own times, and stays when the series no longer has that occurrence', () => {
    const series = event('s', { startTime: '2026-03-02T09:00:00.000Z', endTime: '2026-03-02T09:15:00.000Z', rrule: 'FREQ=DAILY;COUNT=5', exdate: '2026-03-04T09:00:00.000Z' });
    const moved = event('s-0303', { startTime: '2026-03-03T15:00:00.000Z', endTime: '2026-03-03T15:30:00.000Z', recurringEventUid: 's', originalStartTime: '2026-03-03T09:00:00.000Z', title: 'moved' });
    const orphan = event('s-0401', { startTime: '2026-04-01T10:00:00.000Z', endTime: '2026-04-01T10:30:00.000Z', recurringEventUid: 's', originalStartTime: '2026-04-01T09:00:00.000Z' });
    const { occurrences } = expandOccurrences([series, moved, orphan], () => null, { from: '2026-03-01T00:00:00Z', to: '2026-05-01T00:00:00Z' });
    expect(occurrences.map((o) => [o.eventUid, o.start, o.originalStart, o.overridden])).toEqual([
      ['s', '2026-03-02T09:00:00.000Z', '2026-03-02T09:00:00.000Z', false],
      ['s-0303', '2026-03-03T15:00:00.000Z', '2026-03-03T09:00:00.000Z', true],
      ['s', '2026-03-05T09:00:00.000Z', '2026-03-05T09:00:00.000Z', false],
      ['s', '2026-03-06T09:00:00.000Z', '2026-03-06T09:00:00.000Z', false],
      ['s-0401', '2026-04-01T10:00:00.000Z', '2026-04-01T09:00:00.000Z', true],
    ]);
  });
  it('a series keeps its calendar\'s zone when it has none of its own', () => {
    const series = event('s', { startTime: '2026-01-05T08:00:00.000Z', endTime: '2026-01-05T09:00:00.000Z', rrule: 'FREQ=WEEKLY;COUNT=30' });
    const { occurrences } = expandOccurrences([series], (cal) => (cal === 'cal' ? 'Europe/Berlin' : null), { from: '2026-07-01T00:00:00Z', to: '2026-07-08T00:00:00Z' });
    expect(occurrences.map((o) => [o.start, o.timezone])).toEqual([['2026-07-06T07:00:00.000Z', 'Europe/Berlin']]);
  });
  it('orders by start then uid, clips to the limit and says so, and filters calendars', () => {
    const a = event('b', { startTime: '2026-03-02T09:00:00.000Z', endTime: '2026-03-02T10:00:00.000Z', rrule: 'FREQ=DAILY' });
    const b = event('a', { startTime: '2026-03-02T09:00:00.000Z', endTime: '2026-03-02T10:00:00.000Z', rrule: 'FREQ=DAILY', calendarUid: 'other' });
    const page = expandOccurrences([a, b], () => null, { from: '2026-03-01T00:00:00Z', to: '2026-04-01T00:00:00Z', limit: 5 });
    expect(page.truncated).toBe(true);
    expect(page.occurrences.map((o) => o.eventUid)).toEqual(['a', 'b', 'a', 'b', 'a']);
    expect(expandOccurrences([a, b], () => null, { from: '2026-03-01T00:00:00Z', to: '2026-04-01T00:00:00Z', calendarUids: ['other'] }).occurrences.every((o) => o.calendarUid === 'other')).toBe(true);
  });
  it('over the limit, the events with the most occurrences give up their latest first: a minutely series hides no later event', () => {
    const minutely = event('m', { startTime: '2026-12-10T00:00:00.000Z', endTime: '2026-12-10T00:01:00.000Z', rrule: 'FREQ=MINUTELY' });
    const weekly = event('w', { startTime: '2026-12-01T09:00:00.000Z', endTime: '2026-12-01T10:00:00.000Z', rrule: 'FREQ=WEEKLY' });
    const holiday = event('h', { startTime: '2026-12-24', endTime: '2026-12-25', allDay: true });
    const daily = event('d', { startTime: '2026-12-01T12:00:00.000Z', endTime: '2026-12-01T12:30:00.000Z', rrule: 'FREQ=DAILY' });
    const window = { from: '2026-12-01T00:00:00Z', to: '2027-01-01T00:00:00Z', limit: 100 };
    const page = expandOccurrences([minutely, weekly, holiday, daily], () => null, window);
    expect(page.truncated).toBe(true);
    const count = (uid: string) => page.occurrences.filter((o) => o.eventUid === uid).length;
    // The weekly series (5), the holiday (1) and the daily one (31) keep all theirs; the minutely
    // series keeps what is left of the 100, its first ones.
    expect([count('w'), count('h'), count('d'), count('m')]).toEqual([5, 1, 31, 63]);
    expect(page.occurrences.filter((o) => o.eventUid === 'm').at(-1)?.start).toBe('2026-12-10T01:02:00.000Z');
    const starts = page.occurrences.map((o) => o.start);
    expect(starts).toEqual([...starts].sort());
    // Two series over the limit share what the daily one leaves (69): 35 and 34, the odd one to the earlier.
    const two = expandOccurrences([minutely, { ...minutely, uid: 'm2' }, daily], () => null, window);
    expect([two.occurrences.filter((o) => o.eventUid === 'm').length, two.occurrences.filter((o) => o.eventUid === 'm2').length, two.occurrences.filter((o) => o.eventUid === 'd').length]).toEqual([35, 34, 31]);
    // More events than the limit: the earliest.
    const singles = Array.from({ length: 5 }, (_, i) => event(`s${i}`, { startTime: `2026-12-0${i + 1}T09:00:00.000Z`, endTime: `2026-12-0${i + 1}T10:00:00.000Z` }));
    expect(expandOccurrences(singles, () => null, { ...window, limit: 3 }).occurrences.map((o) => o.eventUid)).toEqual(['s0', 's1', 's2']);
  });
  it('an occurrence counts when it overlaps the window: one that ends at `from` does not', () => {
    const single = event('x', { startTime: '2026-03-02T09:00:00.000Z', endTime: '2026-03-02T10:00:00.000Z' });
    expect(expandOccurrences([single], () => null, { from: '2026-03-02T10:00:00Z', to: '2026-03-03T00:00:00Z' }).occurrences).toEqual([]);
    expect(expandOccurrences([single], () => null, { from: '2026-03-02T09:59:00Z', to: '2026-03-03T00:00:00Z' }).occurrences).toHaveLength(1);
  });
});

describe('bounded walks', () => {
  it('a rule that matches nothing more stops at the window instead of walking to the year 9999', () => {
    // Valid at push time (it has occurrences until 2027), then looked at from 2030 on: the rrule
    // package alone walks day by day to 9999 (seconds of CPU); with the budget this returns at once.
    const starts = expandRule({ rule: 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;UNTIL=20280301T000000Z', start: Date.UTC(2024, 1, 29, 9), toLocal: (i) => i, from: Date.UTC(2030, 0, 1), to: Date.UTC(2031, 0, 1), limit: 10 });
    expect(starts).toEqual([]);
    const far = expandRule({ rule: 'FREQ=MONTHLY;INTERVAL=12;BYMONTH=3', start: Date.UTC(2024, 0, 15, 9), toLocal: (i) => i, from: Date.UTC(2024, 0, 1), to: Date.UTC(2025, 0, 1), limit: 10 });
    expect(far).toEqual([Date.UTC(2024, 0, 15, 9)]);
  });
  it('a series that began decades before the window is walked from near the window', () => {
    const starts = expandRule({ rule: 'FREQ=WEEKLY;INTERVAL=3;BYDAY=TU,TH', start: Date.UTC(1990, 0, 2, 9), toLocal: (i) => i, from: Date.UTC(2026, 5, 1), to: Date.UTC(2026, 6, 1), limit: 50 });
    // Every third week from the week of 2 January 1990 (a Tuesday): count the weeks to check the phase.
    for (const s of starts) expect(Math.floor((s - Date.UTC(1990, 0, 1)) / (7 * 86_400_000)) % 3).toBe(0);
    expect(starts.length).toBeGreaterThanOrEqual(2);
  });
});
