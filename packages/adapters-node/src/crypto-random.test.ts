import { describe, expect, it } from 'vitest';
import { CryptoRandom } from './crypto-random.js';

describe('CryptoRandom', () => {
  const random = new CryptoRandom();
  it('gives bytes of the asked length, ints in range and UUIDs', () => {
    expect(random.bytes(32)).toHaveLength(32);
    for (let i = 0; i < 200; i++) {
      const n = random.int(6);
      expect(Number.isInteger(n) && n >= 0 && n < 6).toBe(true);
    }
    expect(random.uuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(random.uuid()).not.toBe(random.uuid());
  });
});
