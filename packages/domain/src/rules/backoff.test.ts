import { describe, expect, it } from 'vitest';
import { backoffMs } from './backoff.js';

describe('backoffMs', () => {
  const policy = { baseMs: 1000, maxMs: 60_000 } as const;
  it('doubles from the base and stops at the cap', () => {
    expect([0, 1, 2, 5, 6, 7, 100].map((a) => backoffMs(a, { ...policy, jitter: 'none' }))).toEqual([1000, 2000, 4000, 32_000, 60_000, 60_000, 60_000]);
  });
  it('jitters within [0, ceiling) in full and [ceiling/2, ceiling) in equal', () => {
    expect(backoffMs(3, { ...policy, jitter: 'full' }, () => 0)).toBe(0);
    expect(backoffMs(3, { ...policy, jitter: 'full' }, () => 0.999_999)).toBe(7999);
    expect(backoffMs(3, { ...policy, jitter: 'equal' }, () => 0)).toBe(4000);
    expect(backoffMs(3, { ...policy, jitter: 'equal' }, () => 0.5)).toBe(6000);
  });
  it('treats a negative attempt as the first', () => {
    expect(backoffMs(-3, { ...policy, jitter: 'none' })).toBe(1000);
  });
});
