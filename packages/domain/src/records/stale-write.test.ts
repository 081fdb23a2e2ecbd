import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listEntries } from './field-validation.js';
import { settleStaleWrite } from './stale-write.js';

/** Occurrences of a weekly 18:00 Berlin series in December (17:00Z), by day of the month. */
const at = (day: number, hourZ = 17): string => `2026-12-${String(day).padStart(2, '0')}T${hourZ}:00:00.000Z`;
const list = (...entries: string[]): string | null => (entries.length === 0 ? null : entries.join(','));

describe('what a stale upsert cost the version it replaced', () => {
  it('nothing, when the other device did not change the fields this one sent (it renamed the series, this one cancelled an occurrence)', () => {
    const outcome = settleStaleWrite('events', { exdate: at(14) }, { exdate: null }, { title: 'Gym (renamed)', exdate: null });
    expect(outcome).toEqual({ kind: 'kept' });
  });

  it('nothing, when both wrote the same value, however it is spelled', () => {
    expect(settleStaleWrite('events', { startTime: '2026-12-07T18:00:00.000Z' }, { startTime: at(7) }, { startTime: '2026-12-07T18:00:00Z' })).toEqual({ kind: 'kept' });
    expect(settleStaleWrite('events', { exdate: `${at(14)},${at(21)}` }, { exdate: null }, { exdate: '2026-12-21T17:00:00Z, 2026-12-14T17:00:00Z' })).toEqual({ kind: 'kept' });
  });

  it('a field both set to different values is lost, for any record type; so is one sent without a known base', () => {
    expect(settleStaleWrite('events', { title: 'Swim' }, { title: 'Gym' }, { title: 'Run' })).toEqual({ kind: 'lost', fields: ['title'] });
    expect(settleStaleWrite('tasks', { completed: true, notes: 'x' }, { completed: false, notes: null }, { completed: false, notes: 'y' })).toEqual({ kind: 'lost', fields: ['notes'] });
    expect(settleStaleWrite('reminders', { minutesBefore: 10 }, undefined, { minutesBefore: 30 })).toEqual({ kind: 'lost', fields: ['minutesBefore'] });
    expect(settleStaleWrite('calendars', { color: '#112233' }, undefined, { color: '#112233' })).toEqual({ kind: 'kept' });
  });

  it('two devices that cancelled different occurrences: the merge keeps both cancellations', () => {
    expect(settleStaleWrite('events', { exdate: at(21) }, { exdate: null }, { exdate: at(14) })).toEqual({ kind: 'merge', patch: { exdate: list(at(21), at(14)) } });
  });

  it("the other device's removals go too: an occurrence it moved (a new key for the old) or put back", () => {
    // It moved every occurrence an hour later, and the cancelled 7 December with it; this one cancelled the 14th at 18:00.
    expect(settleStaleWrite('events', { exdate: list(at(7), at(14)) }, { exdate: at(7) }, { exdate: at(7, 18) })).toEqual({ kind: 'merge', patch: { exdate: list(at(14), at(7, 18)) } });
    // It put 14 December back; this one cancelled the 21st.
    expect(settleStaleWrite('events', { exdate: list(at(7), at(14), at(21)) }, { exdate: list(at(7), at(14)) }, { exdate: at(7) })).toEqual({ kind: 'merge', patch: { exdate: list(at(7), at(21)) } });
  });

  it('is lost when the merged list would not fit the field, or when another field is lost beside it', () => {
    const many = Array.from({ length: 800 }, (_, i) => new Date(Date.UTC(2027, 0, 1) + i * 86_400_000).toISOString());
    expect(settleStaleWrite('events', { exdate: list(...many) }, { exdate: null }, { exdate: list(at(14)) })).toEqual({ kind: 'lost', fields: ['exdate'] });
    expect(settleStaleWrite('events', { exdate: at(21), title: 'A' }, { exdate: null, title: 'G' }, { exdate: at(14), title: 'B' })).toEqual({ kind: 'lost', fields: ['title'] });
  });

  it('a merged exdate holds what each device added, nothing either removed, and nothing neither had (three-way set merge)', () => {
    const days = fc.uniqueArray(fc.integer({ min: 1, max: 31 }), { maxLength: 8 }).map((ds) => ds.map((d) => at(d)));
    fc.assert(
      fc.property(days, days, days, (base, mine, theirs) => {
        const value = (entries: string[]) => list(...entries);
        const outcome = settleStaleWrite('events', { exdate: value(mine) }, { exdate: value(base) }, { exdate: value(theirs) });
        expect(outcome.kind).not.toBe('lost');
        const result = new Set(outcome.kind === 'merge' ? listEntries(outcome.patch.exdate) : mine);
        const has = (e: string) => result.has(e);
        expect(mine.filter((e) => !base.includes(e)).every(has)).toBe(true);
        expect(theirs.filter((e) => !base.includes(e)).every(has)).toBe(true);
        expect(base.filter((e) => !mine.includes(e) || !theirs.includes(e)).some(has)).toBe(false);
        expect([...result].every((e) => mine.includes(e) || theirs.includes(e))).toBe(true);
        // When the other device changed nothing, nothing is written again.
        if (new Set(theirs).size === new Set(base).size && theirs.every((e) => base.includes(e))) expect(outcome).toEqual({ kind: 'kept' });
      }),
    );
  });
});
