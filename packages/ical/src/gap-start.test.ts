import { expandOccurrences } from '@calsync/domain/calendar';
import type { FieldValues } from '@calsync/domain/records';
import { caseCalendar, gapSeriesCaseArb, pythonStarts, pythonWithOracle, type SeriesCase } from '@calsync/domain/test-support';
import { propertyRuns } from '@calsync/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCalendar, renderCalendar } from './index.js';

// A series whose DTSTART is a wall time its day skips, read from iCalendar and written back: the
// Python oracle expands the text as written, ours the records the import made, and the oracle the
// text the records render to (what a CalDAV GET and a feed answer).
const RUNS = propertyRuns(60);
const TIMEOUT_MS = Math.max(300_000, RUNS * 2_000);
const python = pythonWithOracle();
const requireOracle = process.env.CI === 'true' || process.env.REQUIRE_PYTHON_ORACLE === '1';

function imported(text: string): FieldValues {
  const parsed = parseCalendar(text, 'UTC');
  const object = parsed.objects[0];
  if (object?.kind !== 'event') throw new Error(`not imported: ${JSON.stringify(parsed.skipped)}`);
  return { ...object.root.fields, calendarUid: 'cal', recurringEventUid: null, originalStartTime: null };
}

const window = (c: SeriesCase) => ({ from: new Date(c.from).toISOString(), to: new Date(c.to).toISOString() });
const ours = (fields: FieldValues, c: SeriesCase) => expandOccurrences([{ uid: 's', fields }], () => null, { ...window(c), tz: 'UTC' }).occurrences.map((o) => o.start);

describe('a series whose DTSTART its day skips, through iCalendar', () => {
  it.runIf(python !== null || requireOracle)(
    `is imported with the occurrences RFC 5545 gives the text, and written back with them (${RUNS} cases)`,
    () => {
      if (python === null) throw new Error('no Python with icalendar and recurring_ical_events (apt-get install python3-icalendar python3-recurring-ical-events)');
      const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
      const cases = fc.sample(gapSeriesCaseArb('python'), { numRuns: RUNS, seed });
      const texts = cases.map((c) => caseCalendar(c, []));
      const records = texts.map(imported);
      const rendered = records.map((fields) => renderCalendar({ events: [{ root: { uid: 's', fields }, overrides: [], reminders: [] }] }));
      const asWritten = pythonStarts(python, cases.map((c, k) => ({ ics: texts[k]!, ...window(c), zone: c.zone })));
      const asRendered = pythonStarts(python, cases.map((c, k) => ({ ics: rendered[k]!, ...window(c), zone: c.zone })));
      const disagreements: string[] = [];
      cases.forEach((c, k) => {
        const want = JSON.stringify(asWritten[k]);
        const got = { records: JSON.stringify(ours(records[k]!, c)), rendered: JSON.stringify(asRendered[k]), again: JSON.stringify(ours(imported(rendered[k]!), c)) };
        for (const [what, starts] of Object.entries(got)) {
          if (starts !== want) disagreements.push(`${c.rule} from ${new Date(c.startLocal).toISOString()} in ${c.zone}, stored from ${String(records[k]!.startTime)}: ${what} ${starts.slice(0, 200)}, RFC 5545 ${want.slice(0, 200)}`);
        }
      });
      expect(disagreements.slice(0, 3), `seed ${seed}: ${disagreements.length} disagreements in ${cases.length} cases`).toEqual([]);
    },
    TIMEOUT_MS,
  );

  it('keeps 02:00 for the nights after the one in Sydney that skips it, and the COUNT', () => {
    const text = [
      'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', 'BEGIN:VEVENT', 'UID:night', 'DTSTAMP:20310101T000000Z',
      'DTSTART;TZID=Australia/Sydney:20311005T020000', 'DTEND;TZID=Australia/Sydney:20311005T021500', 'RRULE:FREQ=DAILY;COUNT=3', 'SUMMARY:Night',
      'END:VEVENT', 'END:VCALENDAR',
    ].join('\r\n');
    const fields = imported(text);
    expect(fields).toMatchObject({ startTime: '2031-10-03T16:00:00.000Z', endTime: '2031-10-03T16:15:00.000Z', rrule: 'FREQ=DAILY;COUNT=4', exdate: '2031-10-03T16:00:00.000Z' });
    const starts = expandOccurrences([{ uid: 's', fields }], () => null, { from: '2031-10-01T00:00:00Z', to: '2031-10-10T00:00:00Z', tz: 'Australia/Sydney' }).occurrences.map((o) => o.start);
    // 02:00 AEST does not exist on 5 October (03:00 AEDT, 16:00Z); 02:00 AEDT on the 6th and 7th.
    expect(starts).toEqual(['2031-10-04T16:00:00.000Z', '2031-10-05T15:00:00.000Z', '2031-10-06T15:00:00.000Z']);
  });
});
