import { describe, expect, it } from 'vitest';
import { clampToBounds, PAGE_LIMITS } from './page-limits.js';

// The engine is the one owner of page limits: the HTTP layer passes the integers it was given.
describe('clampToBounds over the page-limits table', () => {
  it('clamps the pull limit into 1..1000 and defaults to 500', () => {
    expect([undefined, 0, -5, 20, 5000, 1e20, -1e20].map((v) => clampToBounds(v, PAGE_LIMITS.pull))).toEqual([500, 1, 1, 20, 1000, 1000, 1]);
  });
  it('clamps the conflict limit into 1..200 (default 50) and afterId into 0..MAX_SAFE_INTEGER (default 0)', () => {
    expect([undefined, 0, 999, -1e20].map((v) => clampToBounds(v, PAGE_LIMITS.conflicts))).toEqual([50, 1, 200, 1]);
    expect([undefined, -3, 10, 1e20].map((v) => clampToBounds(v, PAGE_LIMITS.conflictAfterId))).toEqual([0, 0, 10, Number.MAX_SAFE_INTEGER]);
  });
  it('truncates fractions and falls back to the default for a non-number', () => {
    expect(clampToBounds(7.9, PAGE_LIMITS.pull)).toBe(7);
    expect(clampToBounds(Number.NaN, PAGE_LIMITS.conflicts)).toBe(50);
  });
});
