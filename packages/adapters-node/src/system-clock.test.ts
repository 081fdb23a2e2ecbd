import { describe, expect, it } from 'vitest';
import { SystemClock } from './system-clock.js';

describe('SystemClock', () => {
  it('never goes backwards', () => {
    const clock = new SystemClock();
    let prev = clock.now().getTime();
    for (let i = 0; i < 1000; i++) {
      const t = clock.now().getTime();
      expect(t).toBeGreaterThanOrEqual(prev);
      prev = t;
    }
  });
});
