import { randomBytes, randomInt, randomUUID, scrypt } from 'node:crypto';
import { timingSafeEqual } from 'node:crypto';
import type { Clock, PasswordHasher, Random } from '@calsync/domain';

/** A Clock for sign-in tests that only moves when told to. */
export class ManualAuthClock implements Clock {
  private ms: number;
  constructor(start: Date | string = '2030-01-01T00:00:00.000Z') {
    this.ms = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.ms);
  }
  advanceSeconds(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

/** A Random backed by node:crypto (real CSPRNG), for tests that need unique ids and codes. */
export const cryptoRandom: Random = {
  bytes: (n) => new Uint8Array(randomBytes(n)),
  int: (max) => randomInt(max),
  uuid: () => randomUUID(),
};

/**
 * A cheap scrypt PasswordHasher (N=2^10) so tests run fast; production uses N=2^17 through the
 * same port.
 */
export class CheapPasswordHasher implements PasswordHasher {
  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await this.derive(password, salt);
    return `test$${salt.toString('base64')}$${key.toString('base64')}`;
  }
  async verify(password: string, stored: string): Promise<boolean> {
    const [tag, salt, key] = stored.split('$');
    if (tag !== 'test' || !salt || !key) return false;
    const want = Buffer.from(key, 'base64');
    const got = await this.derive(password, Buffer.from(salt, 'base64'));
    return want.length === got.length && timingSafeEqual(want, got);
  }
  private derive(password: string, salt: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) =>
      scrypt(password.normalize('NFC'), salt, 32, { N: 1024, r: 8, p: 1 }, (err, key) => (err ? reject(err) : resolve(key))),
    );
  }
}
