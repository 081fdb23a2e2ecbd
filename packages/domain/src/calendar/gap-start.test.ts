import { propertyRuns } from '@calsync/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caseCalendar } from '../../test-support/ical-oracle.js';
import { pythonStarts, pythonWithOracle } from '../../test-support/python-oracle.js';
import { gapSeriesCaseArb, type SeriesCase } from '../../test-support/series-arbitrary.js';
import type { FieldValues } from '../records/types.js';
import { expandOccurrences } from './expand-occurrences.js';
import { countingGap, gapStart, gapStartOf } from './gap-start.js';
import { instantOfLocal } from './zone.js';

const RUNS = propertyRuns(120);
const TIMEOUT_MS = Math.max(300_000, RUNS * 1_000);
const python = pythonWithOracle();
const requireOracle = process.env.CI === 'true' || process.env.REQUIRE_PYTHON_ORACLE === '1';

const wall = (text: string) => Date.parse(`${text}Z`);
const iso = (local: number, zone: string) => new Date(instantOfLocal(local, zone)).toISOString();

/** The event a case is stored as: begun at its `gapStart`, the occurrences before the wanted one cancelled. */
function storedEvent(c: SeriesCase): FieldValues | null {
  const gap = gapStart(c.rule, c.startLocal, c.zone);
  if (gap === null) return null;
  const start = instantOfLocal(gap.start, c.zone);
  return {
    calendarUid: 'cal',
    title: 'series',
    startTime: new Date(start).toISOString(),
    endTime: new Date(start + c.duration).toISOString(),
    allDay: false,
    timezone: c.zone,
    rrule: countingGap(c.rule, gap),
    exdate: gap.cancelled.map((s) => iso(s, c.zone)).join(','),
    recurringEventUid: null,
    originalStartTime: null,
  };
}

describe('a series whose first wall time its day skips (gapStart)', () => {
  it.runIf(python !== null || requireOracle)(
    `has the occurrences Python icalendar + recurring_ical_events gives its DTSTART as written (${RUNS} cases)`,
    () => {
      if (python === null) throw new Error('no Python with icalendar and recurring_ical_events (apt-get install python3-icalendar python3-recurring-ical-events)');
      const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
      const cases = fc.sample(gapSeriesCaseArb('python'), { numRuns: RUNS, seed });
      const expected = pythonStarts(python, cases.map((c) => ({ ics: caseCalendar(c, []), from: new Date(c.from).toISOString(), to: new Date(c.to).toISOString(), zone: c.zone })));
      const disagreements: string[] = [];
      cases.forEach((c, k) => {
        const event = storedEvent(c);
        if (event === null) {
          disagreements.push(`${c.rule} from ${new Date(c.startLocal).toISOString()} in ${c.zone}: no gapStart`);
          return;
        }
        const actual = expandOccurrences([{ uid: 's', fields: event }], () => null, { from: new Date(c.from).toISOString(), to: new Date(c.to).toISOString(), tz: 'UTC' }).occurrences.map((o) => o.start);
        const want = expected[k] ?? [];
        if (JSON.stringify(actual) !== JSON.stringify(want)) {
          disagreements.push(`${c.rule} from ${new Date(c.startLocal).toISOString()} in ${c.zone}, stored from ${String(event.startTime)} exdate ${String(event.exdate)}\nonly ours: ${actual.filter((x) => !want.includes(x)).slice(0, 6).join(' ')}\nonly python: ${want.filter((x) => !actual.includes(x)).slice(0, 6).join(' ')}`);
        }
      });
      expect(disagreements.slice(0, 3), `seed ${seed}: ${disagreements.length} of ${cases.length} cases disagree`).toEqual([]);
    },
    TIMEOUT_MS,
  );

  it('begins a daily 02:00 series in Sydney on the night 02:00 is skipped at the 02:00 before it, cancelled', () => {
    const gap = gapStart('FREQ=DAILY;COUNT=4', wall('2031-10-05T02:00:00'), 'Australia/Sydney');
    expect(gap).toEqual({ start: wall('2031-10-04T02:00:00'), cancelled: [wall('2031-10-04T02:00:00')] });
    expect(countingGap('FREQ=DAILY;COUNT=4', gap)).toBe('FREQ=DAILY;COUNT=5');
    expect(gapStartOf('FREQ=DAILY;COUNT=5', gap!.start, 'Australia/Sydney', (s) => gap!.cancelled.includes(s))).toBe(wall('2031-10-05T02:00:00'));
  });

  it('begins a Monday and Wednesday series at the Monday before a skipped Wednesday time, and a weekly one a week before', () => {
    // New York springs forward on Sunday 8 March 2026; Chatham on Sunday 27 September 2026, at 02:45.
    expect(gapStart('FREQ=WEEKLY;BYDAY=MO,SU', wall('2026-03-08T02:30:00'), 'America/New_York')?.start).toBe(wall('2026-03-02T02:30:00'));
    expect(gapStart('FREQ=WEEKLY;INTERVAL=2', wall('2026-09-27T03:00:00'), 'Pacific/Chatham')).toEqual({ start: wall('2026-09-13T03:00:00'), cancelled: [wall('2026-09-13T03:00:00')] });
  });

  it('leaves a start that exists, a rule that repeats within a day, and a DTSTART off its rule', () => {
    expect(gapStart('FREQ=DAILY', wall('2026-03-08T03:00:00'), 'America/New_York')).toBeNull();
    expect(gapStart('FREQ=HOURLY', wall('2026-03-08T02:30:00'), 'America/New_York')).toBeNull();
    // 8 March 2026 is a Sunday: a Monday rule from it has other occurrences than from any Monday.
    expect(gapStart('FREQ=WEEKLY;BYDAY=MO', wall('2026-03-08T02:30:00'), 'America/New_York')).toBeNull();
    expect(gapStartOf('FREQ=DAILY', wall('2026-03-07T02:30:00'), 'America/New_York', () => false)).toBeNull();
  });
});
