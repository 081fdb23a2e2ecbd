import { describe, expect, it } from 'vitest';
import { PRODUCTION_SCRYPT, ScryptPasswordHasher } from './scrypt-password-hasher.js';

describe('ScryptPasswordHasher', () => {
  it('hashes with production parameters (N=2^17, explicit maxmem) and verifies', async () => {
    const hasher = new ScryptPasswordHasher();
    const hash = await hasher.hash('correct horse battery');
    expect(hash.startsWith(`scrypt$${PRODUCTION_SCRYPT.N}$8$1$`)).toBe(true);
    expect(hash).not.toContain('correct horse');
    expect(await hasher.verify('correct horse battery', hash)).toBe(true);
    expect(await hasher.verify('correct horse batterY', hash)).toBe(false);
  });

  it('salts every hash, never truncates, and refuses malformed stored hashes', async () => {
    const hasher = new ScryptPasswordHasher({ N: 1024, r: 8, p: 1 });
    const long = 'x'.repeat(128);
    const a = await hasher.hash(long);
    expect(a).not.toBe(await hasher.hash(long));
    expect(await hasher.verify(`${'x'.repeat(127)}y`, a)).toBe(false);
    expect(await hasher.verify(long, a)).toBe(true);
    for (const bad of ['', 'scrypt$1$2', 'bcrypt$x', `scrypt$${2 ** 30}$8$1$AA$AA`]) expect(await hasher.verify(long, bad)).toBe(false);
  });
});
