import { propertyRuns } from '@calsync/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dateOfMs, INSTANT_RANGE, instantMsOf, isoOfMs, parseIsoInstant, storedInstant } from './datetime.js';

const RUNS = propertyRuns();
const instant = fc.integer({ min: INSTANT_RANGE.min, max: INSTANT_RANGE.max });

describe('the arithmetic ISO codec', () => {
  it('writes what toISOString writes, for every instant we accept', () => {
    fc.assert(
      fc.property(instant, (ms) => {
        expect(isoOfMs(ms)).toBe(new Date(ms).toISOString());
        expect(dateOfMs(ms)).toBe(new Date(ms).toISOString().slice(0, 10));
      }),
      { numRuns: 2000 * RUNS },
    );
    for (const ms of [INSTANT_RANGE.min, INSTANT_RANGE.max, 0, -1, Date.UTC(2000, 1, 29), Date.UTC(1900, 2, 1) - 1]) expect(isoOfMs(ms)).toBe(new Date(ms).toISOString());
  });

  it('reads back what it writes, and a bare date as midnight UTC', () => {
    fc.assert(
      fc.property(instant, (ms) => {
        const text = isoOfMs(ms);
        expect(instantMsOf(text)).toBe(ms);
        expect(instantMsOf(text.slice(0, 10))).toBe(Math.floor(ms / 86_400_000) * 86_400_000);
      }),
      { numRuns: 2000 * RUNS },
    );
  });

  it('agrees with parseIsoInstant on any text, impossible dates and other forms included (instantMsOf, storedInstant)', () => {
    const digit = (n: number) => fc.integer({ min: 0, max: 10 ** n - 1 }).map((v) => String(v).padStart(n, '0'));
    const stored = fc
      .tuple(digit(4), digit(2), digit(2), digit(2), digit(2), digit(2), digit(3))
      .map(([y, mo, d, h, mi, s, ms]) => `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`);
    const dateOnly = fc.tuple(digit(4), digit(2), digit(2)).map(([y, mo, d]) => `${y}-${mo}-${d}`);
    const other = fc.oneof(fc.string(), fc.constantFrom('2024-02-29T10:00:00+02:00', '20240501T100000Z', '2023-02-29', '2024-02-29', '0000-01-01T00:00:00.000Z', '2024-13-01T00:00:00.000Z', '2024-01-01T24:00:00.000Z', '2024-01-0aT00:00:00.000Z'));
    fc.assert(
      fc.property(fc.oneof(stored, dateOnly, other), (text) => {
        const expected = parseIsoInstant(text)?.getTime() ?? Number.NaN;
        expect(instantMsOf(text)).toBe(expected);
        expect(storedInstant(text)).toBe(parseIsoInstant(text)?.toISOString() ?? null);
      }),
      { numRuns: 3000 * RUNS },
    );
  });

  it('reads the canonical form (its fast path) as the same text with a +00:00 offset (the full path)', () => {
    const digit = (n: number) => fc.integer({ min: 0, max: 10 ** n - 1 }).map((v) => String(v).padStart(n, '0'));
    const canonical = fc.oneof(
      instant.map((ms) => new Date(ms).toISOString()),
      fc.tuple(digit(4), digit(2), digit(2), digit(2), digit(2), digit(2), digit(3)).map(([y, mo, d, h, mi, s, ms]) => `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`),
      fc.constantFrom('2023-02-29T00:00:00.000Z', '2024-02-29T23:59:59.999Z', '2024-01-01T23:59:60.000Z', '0000-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'),
    );
    fc.assert(
      fc.property(canonical, (text) => {
        expect(parseIsoInstant(text)?.getTime() ?? null).toBe(parseIsoInstant(`${text.slice(0, -1)}+00:00`)?.getTime() ?? null);
      }),
      { numRuns: 3000 * RUNS },
    );
  });
});
