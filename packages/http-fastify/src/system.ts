import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { Clock, Random } from '@calsync/domain';

/**
 * The wall clock for production. Never goes backwards: if the system clock steps back, it keeps
 * answering the last instant it gave until real time catches up.
 */
export class SystemClock implements Clock {
  private last = 0;

  now(): Date {
    const t = Math.max(Date.now(), this.last);
    this.last = t;
    return new Date(t);
  }
}

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
