import type { Random } from '@calsync/domain';

/** A deterministic `Random` (xorshift128+ over a seed) so tests that need randomness replay exactly. */
export class SeededRandom implements Random {
  #s0: bigint;
  #s1: bigint;

  constructor(seed = 1) {
    this.#s0 = BigInt.asUintN(64, BigInt(seed) * 0x9e3779b97f4a7c15n + 1n);
    this.#s1 = BigInt.asUintN(64, (BigInt(seed) ^ 0x5deece66dn) * 0xbf58476d1ce4e5b9n + 7n);
  }

  #next(): bigint {
    let s1 = this.#s0;
    const s0 = this.#s1;
    this.#s0 = s0;
    s1 ^= BigInt.asUintN(64, s1 << 23n);
    this.#s1 = s1 ^ s0 ^ (s1 >> 17n) ^ (s0 >> 26n);
    return BigInt.asUintN(64, this.#s1 + s0);
  }

  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = Number(this.#next() & 0xffn);
    return out;
  }

  int(maxExclusive: number): number {
    if (!Number.isSafeInteger(maxExclusive) || maxExclusive <= 0) throw new RangeError('maxExclusive must be a positive integer');
    const bound = BigInt(maxExclusive);
    const limit = (1n << 64n) - ((1n << 64n) % bound);
    for (;;) {
      const x = this.#next();
      if (x < limit) return Number(x % bound);
    }
  }

  uuid(): string {
    const b = this.bytes(16);
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
}
