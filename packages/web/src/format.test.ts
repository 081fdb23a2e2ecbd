import { describe, expect, it } from 'vitest';
import { endAfterStartMoved } from './format.js';

describe('endAfterStartMoved: the end follows a moved start', () => {
  it('keeps a timed event’s length, across days and months', () => {
    expect(endAfterStartMoved('2026-11-29T12:00', '2026-11-29T13:30', '2026-12-01T09:00')).toBe('2026-12-01T10:30');
    expect(endAfterStartMoved('2026-11-29T23:00', '2026-11-30T01:00', '2026-12-31T23:30')).toBe('2027-01-01T01:30');
  });
  it('keeps a wall-clock length across a change of offset (1 November 2026 in New York)', () => {
    expect(endAfterStartMoved('2026-10-31T09:00', '2026-10-31T10:00', '2026-11-01T09:00')).toBe('2026-11-01T10:00');
  });
  it('keeps an all-day event’s days', () => {
    expect(endAfterStartMoved('2026-12-01', '2026-12-03', '2027-02-27')).toBe('2027-03-01');
  });
  it('leaves the end alone while a value is incomplete, or when it was before the start', () => {
    expect(endAfterStartMoved('', '2026-12-01T10:00', '2026-12-02T09:00')).toBe('2026-12-01T10:00');
    expect(endAfterStartMoved('2026-12-01T09:00', '2026-12-01T10:00', '')).toBe('2026-12-01T10:00');
    expect(endAfterStartMoved('2026-12-01T09:00', '2026-11-30T10:00', '2026-12-02T09:00')).toBe('2026-11-30T10:00');
  });
});
