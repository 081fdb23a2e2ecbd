import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { PasswordHasher } from '@calsync/domain';

/** scrypt cost parameters. */
export interface ScryptParams {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** Production parameters: N=2^17, r=8, p=1 (about 128 MiB per hash). */
export const PRODUCTION_SCRYPT: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };

const KEY_LENGTH = 32;
const MAX_MEM = 256 * 1024 * 1024;

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: MAX_MEM };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/**
 * PasswordHasher with node:crypto scrypt. Stored form `scrypt$N$r$p$salt$key` (base64), so old
 * hashes keep verifying after the parameters change. The whole password is hashed, never truncated.
 */
export class ScryptPasswordHasher implements PasswordHasher {
  constructor(private readonly params: ScryptParams = PRODUCTION_SCRYPT) {}

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await derive(password, salt, this.params);
    const { N, r, p } = this.params;
    return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
  }

  async verify(password: string, storedHash: string): Promise<boolean> {
    const parts = storedHash.split('$');
    if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
    const [N, r, p] = parts.slice(1, 4).map(Number);
    if (!N || !r || !p || N > 2 ** 20 || r > 32 || p > 16) return false;
    const want = Buffer.from(parts[5] ?? '', 'base64');
    if (want.length !== KEY_LENGTH) return false;
    const got = await derive(password, Buffer.from(parts[4] ?? '', 'base64'), { N, r, p });
    return timingSafeEqual(want, got);
  }
}
