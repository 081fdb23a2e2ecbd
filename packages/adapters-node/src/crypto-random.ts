import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { Random } from '@calsync/domain';

/** node:crypto's CSPRNG behind the Random port. */
export class CryptoRandom implements Random {
  bytes(length: number): Uint8Array {
    return new Uint8Array(randomBytes(length));
  }

  int(maxExclusive: number): number {
    // crypto.randomInt rejects without modulo bias; its range must be below 2^48.
    return randomInt(maxExclusive);
  }

  uuid(): string {
    return randomUUID();
  }
}
