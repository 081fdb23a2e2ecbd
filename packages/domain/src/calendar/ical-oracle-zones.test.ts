import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { icalOffsetAt, icalZone, ZONE_DATA_FROM, ZONE_DATA_TO, zoneVtimezone } from '../../test-support/ical-oracle.js';
import { instantOfLocal, localMsOf } from './zone.js';

const HOUR_MS = 3_600_000;

// The ical.js oracle (test-support/ical-oracle.ts) writes each zone's VTIMEZONE from Intl, year by
// year. Its zone data must give ical.js the offsets Intl gives our expansion, or the oracle judges
// occurrences at other instants than ours. Santiago's changes moved from year to year (2022's
// summer time began on 11 September, 2024's on 8 September, where the one-rule VTIMEZONE of
// timezones-ical-library the oracle had before said the 4th and the 1st, and this test failed);
// Lord Howe changes by half an hour; Kolkata never changes.
const CASES: readonly [zone: string, fromYear: number, toYear: number][] = [
  ['America/Santiago', 2021, 2030],
  ['Europe/Berlin', 2022, 2025],
  ['America/New_York', 2022, 2025],
  ['Australia/Lord_Howe', 2022, 2025],
  ['Asia/Kolkata', 2022, 2025],
];

describe("the ical.js oracle's zone data", () => {
  it.each(CASES)('gives ical.js the offset of %s that Intl gives, at every hour of %i to %i', (zone, fromYear, toYear) => {
    const tz = icalZone(zone);
    const wrong: string[] = [];
    for (let t = Date.UTC(fromYear, 0, 1); t < Date.UTC(toYear + 1, 0, 1); t += HOUR_MS) {
      const intl = localMsOf(t, zone) - t;
      // The offset at an instant, from the changes ical.js expands out of the VTIMEZONE.
      const ical = icalOffsetAt(tz, t);
      if (ical !== intl) wrong.push(`${new Date(t).toISOString()}: ical.js ${ical / 60_000} min, Intl ${intl / 60_000} min`);
      // ical.js's own reading of a wall time (which it compares with UNTIL), where the wall time
      // occurs once: a skipped or repeated one it reads otherwise than RFC 5545 (ical-oracle.ts).
      const wall = localMsOf(t, zone);
      const once = localMsOf(t - HOUR_MS, zone) === wall - HOUR_MS && localMsOf(t + HOUR_MS, zone) === wall + HOUR_MS && instantOfLocal(wall, zone) === t;
      if (once) {
        const d = new Date(wall);
        const time = new ICAL.Time({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: 0, isDate: false }, tz);
        if (time.toUnixTime() * 1000 !== t) wrong.push(`${time.toString()} (${zone}): ical.js ${new Date(time.toUnixTime() * 1000).toISOString()}, Intl ${new Date(t).toISOString()}`);
      }
    }
    expect(wrong.slice(0, 6), `${wrong.length} wrong`).toEqual([]);
  });

  it('writes each change at the wall time before it, in the offset before it (RFC 5545 §3.6.5)', () => {
    const block = zoneVtimezone('America/Santiago');
    // 2022: summer time from 00:00 on 11 September (-04, 04:00Z), back at 00:00 on 2 April (-03, 03:00Z).
    expect(block).toContain('BEGIN:DAYLIGHT\r\nDTSTART:20220911T000000\r\nTZOFFSETFROM:-0400\r\nTZOFFSETTO:-0300\r\nEND:DAYLIGHT');
    expect(block).toContain('BEGIN:STANDARD\r\nDTSTART:20220403T000000\r\nTZOFFSETFROM:-0300\r\nTZOFFSETTO:-0400\r\nEND:STANDARD');
    expect(zoneVtimezone('Asia/Kolkata')).toBe('BEGIN:VTIMEZONE\r\nTZID:Asia/Kolkata\r\nBEGIN:STANDARD\r\nDTSTART:20180101T053000\r\nTZOFFSETFROM:+0530\r\nTZOFFSETTO:+0530\r\nEND:STANDARD\r\nEND:VTIMEZONE');
  });

  it('has no answer outside its years', () => {
    expect(() => icalOffsetAt(icalZone('Europe/Berlin'), ZONE_DATA_FROM - 1)).toThrow(/outside the oracle's zone data/);
    expect(() => icalOffsetAt(icalZone('Europe/Berlin'), ZONE_DATA_TO)).toThrow(/outside the oracle's zone data/);
  });
});
