import { propertyRuns } from '@calsync/testkit';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { caseCalendar, icalStarts, inWindow } from '../../test-support/ical-oracle.js';
import { caseEvent, caseExdates, type SeriesCase, seriesCaseArb } from '../../test-support/series-arbitrary.js';
import { expandOccurrences } from './expand-occurrences.js';

// FC_RUNS multiplies the runs, as everywhere.
const RUNS = propertyRuns(200);
const DAY_MS = 86_400_000;

/** Our occurrence starts of a case's series in its window. */
function ours(c: SeriesCase, exdates: readonly string[]): string[] {
  const event = { uid: 'series', fields: caseEvent(c, exdates) };
  const from = new Date(c.from).toISOString();
  const to = new Date(c.to).toISOString();
  return expandOccurrences([event], () => null, { from, to, tz: 'UTC' }).occurrences.map((o) => o.start);
}

describe('the expander against ical.js (RFC 5545 oracle)', () => {
  it(`gives the same occurrences for random rules, zones and windows across DST changes (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(seriesCaseArb('ical'), (c) => {
        // A case ical.js cannot expand (icalStarts) has no oracle answer: skipped, and counted as such by fast-check.
        const fromStart = icalStarts(c, [], c.to + 3 * DAY_MS, 400);
        fc.pre(fromStart !== null);
        const exdates = caseExdates(c, fromStart);
        const oracle = icalStarts(c, exdates, c.to + DAY_MS);
        fc.pre(oracle !== null);
        const expected = inWindow(c, oracle);
        const actual = ours(c, exdates);
        if (JSON.stringify(actual) !== JSON.stringify(expected)) {
          throw new Error(`disagreement\n${caseCalendar(c, exdates)}\nwindow ${new Date(c.from).toISOString()} .. ${new Date(c.to).toISOString()}\nonly ours:    ${actual.filter((x) => !expected.includes(x)).slice(0, 12).join(' ')}\nonly ical.js: ${expected.filter((x) => !actual.includes(x)).slice(0, 12).join(' ')}\n(${actual.length} against ${expected.length})`);
        }
      }),
      { numRuns: RUNS },
    );
  }, 600_000);
});
