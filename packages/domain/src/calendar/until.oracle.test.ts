import { propertyRuns } from '@calsync/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caseCalendar, icalStarts, inWindow } from '../../test-support/ical-oracle.js';
import { caseEvent, icalLocal, ORACLE_ZONES, seriesCaseArb, type SeriesCase } from '../../test-support/series-arbitrary.js';
import { expandOccurrences } from './expand-occurrences.js';
import { lastDayOfUntil, untilOfLastDay, withRfcUntil } from './until.js';
import { dateIn, instantOfLocal, localMsOf, zoneOffsetAt } from './zone.js';

// FC_RUNS multiplies the runs, as everywhere.
const RUNS = propertyRuns(300);
const DAY_MS = 86_400_000;
const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

// An "End date" becomes an UNTIL (untilOfLastDay) and an UNTIL an "End date" (lastDayOfUntil).
// ical.js, reading the UNTIL by RFC 5545, must end a daily series on that very day in the series'
// zone: at any time of day, in zones east and west of UTC, across changes of offset (Auckland's
// and Lord Howe's changes fall near midnight UTC, where the day's end and its offset meet; Santiago,
// in ORACLE_ZONES, changes at midnight on days that move from year to year).
const ZONES = [...ORACLE_ZONES, 'Pacific/Auckland', 'Australia/Lord_Howe', 'Pacific/Kiritimati', 'America/St_Johns'];

/** Whether wall-clock time `local` occurs twice in `zone` (a fall-back change repeats it). */
function repeated(local: number, zone: string): boolean {
  const [early, late] = [zoneOffsetAt(local - DAY_MS, zone), zoneOffsetAt(local + DAY_MS, zone)];
  return early !== late && localMsOf(local - early, zone) === local && localMsOf(local - late, zone) === local;
}

describe('the UNTIL of a last day, against ical.js (RFC 5545 oracle)', () => {
  it(`ends a daily series on that day in its zone, and reads back as that day (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(
        fc.record({
          zone: fc.constantFrom(...ZONES),
          allDay: fc.boolean(),
          day: fc.integer({ min: Date.UTC(2021, 0, 1) / DAY_MS, max: Date.UTC(2030, 11, 31) / DAY_MS }),
          hour: fc.constantFrom(0, 0, 1, 2, 3, 11, 12, 13, 22, 23, 23),
          minute: fc.constantFrom(0, 30, 59),
          days: fc.integer({ min: 0, max: 40 }),
        }),
        (r) => {
          const startLocal = r.day * DAY_MS + (r.allDay ? 0 : (r.hour * 60 + r.minute) * 60_000);
          // The series' time of day must exist on its first day (a start is an instant).
          fc.pre(r.allDay || localMsOf(instantOfLocal(startLocal, r.zone), r.zone) === startLocal);
          const lastDay = isoDate(r.day * DAY_MS + r.days * DAY_MS);
          // ical.js checks UNTIL on its own reading of a wall time, which takes a repeated one for
          // its second instant: Santiago repeats 23:00–24:00 on 2 April 2022, and ical.js dropped
          // that day's 23:00 (02:00Z, the first of the two, as RFC 5545 reads it) against an UNTIL
          // of 02:59:59Z. A last occurrence at a repeated time is not one it can judge.
          fc.pre(r.allDay || !repeated(r.day * DAY_MS + r.days * DAY_MS + (startLocal % DAY_MS), r.zone));
          // It reads a time that a spring-forward change skips with the offset after the gap
          // (ical-oracle.ts), and checks UNTIL on that too: Santiago skips 00:00–01:00 on 5 September
          // 2021, and ical.js read that day's 00:00 as 03:00Z, before the UNTIL of a last day of 4
          // September (03:59:59Z), and kept it; RFC 5545 reads it as 04:00Z, past UNTIL. A day after
          // the last one whose time of day is skipped is not one it can judge either.
          const after = (r.day + r.days + 1) * DAY_MS + (startLocal % DAY_MS);
          fc.pre(r.allDay || localMsOf(instantOfLocal(after, r.zone), r.zone) === after);
          const until = untilOfLastDay(lastDay, { allDay: r.allDay, zone: r.zone });
          expect(lastDayOfUntil(until, r.zone)).toBe(lastDay);
          const c: SeriesCase = { zone: r.zone, allDay: r.allDay, startLocal, duration: r.allDay ? 1 : 30 * 60_000, rule: `FREQ=DAILY;UNTIL=${until}`, exdateIndexes: [], from: 0, to: 0 };
          const starts = icalStarts(c, [], Date.UTC(2032, 0, 1), 100);
          expect(starts).not.toBeNull();
          // One occurrence a day, from the first day to the last one and no further.
          expect(starts!.length).toBe(r.days + 1);
          const days = starts!.map((s) => (r.allDay ? s : dateIn(Date.parse(s), r.zone)));
          expect([days[0], days.at(-1)]).toEqual([isoDate(r.day * DAY_MS), lastDay]);
        },
      ),
      { numRuns: RUNS },
    );
  }, 300_000);

  // A rule as a client may store it (a date UNTIL on a timed series is its whole day here; a
  // floating one a time of the series' zone) is written for calendar apps in RFC 5545's form
  // (withRfcUntil): ical.js must then give the occurrences this store gives for the stored rule.
  it(`writes any UNTIL in RFC 5545's form for the series, with the same occurrences in ical.js (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(
        seriesCaseArb('ical'),
        fc.constantFrom('date', 'floating', 'utc'),
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 0, max: 24 * 60 - 1 }),
        (base, form, days, minuteOfDay) => {
          const body = base.rule.split(';').filter((p) => !p.startsWith('COUNT=') && !p.startsWith('UNTIL=')).join(';');
          const wall = Math.floor(base.startLocal / DAY_MS) * DAY_MS + days * DAY_MS + minuteOfDay * 60_000;
          const until = form === 'date' ? icalLocal(wall, true) : form === 'floating' ? icalLocal(wall, false) : `${icalLocal(wall, false)}Z`;
          const stored: SeriesCase = { ...base, rule: `${body};UNTIL=${until}`, exdateIndexes: [] };
          const written = withRfcUntil(stored.rule, { allDay: stored.allDay, zone: stored.zone });
          expect(written.replace(/UNTIL=[^;]*/, '')).toBe(stored.rule.replace(/UNTIL=[^;]*/, ''));
          const oracle = icalStarts({ ...stored, rule: written }, [], stored.to + DAY_MS);
          fc.pre(oracle !== null);
          const ours = expandOccurrences([{ uid: 'series', fields: caseEvent(stored, []) }], () => null, { from: new Date(stored.from).toISOString(), to: new Date(stored.to).toISOString(), tz: 'UTC' }).occurrences.map((o) => o.start);
          const expected = inWindow(stored, oracle!);
          if (JSON.stringify(ours) !== JSON.stringify(expected)) {
            throw new Error(`disagreement for stored ${stored.rule}, written ${written}\n${caseCalendar({ ...stored, rule: written }, [])}\nonly ours: ${ours.filter((x) => !expected.includes(x)).slice(0, 6).join(' ')}\nonly ical.js: ${expected.filter((x) => !ours.includes(x)).slice(0, 6).join(' ')}`);
          }
        },
      ),
      { numRuns: RUNS },
    );
  }, 300_000);

  it('reads an UNTIL in each of its three forms', () => {
    expect(lastDayOfUntil('20261210', 'Pacific/Auckland')).toBe('2026-12-10');
    expect(lastDayOfUntil('20261210T233000', 'America/New_York')).toBe('2026-12-10');
    expect(lastDayOfUntil('20261211T045959Z', 'America/New_York')).toBe('2026-12-10');
    expect(lastDayOfUntil('20261211T050000Z', 'America/New_York')).toBe('2026-12-11');
    expect(lastDayOfUntil('2026-12-10', 'UTC')).toBeNull();
  });
});
