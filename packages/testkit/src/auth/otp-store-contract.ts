import { describe, expect, it } from 'vitest';
import { AuthFixtures, openForSuite, T0, T1, type OpenAuthStores } from './auth-contract-fixtures.js';

/** The `OtpStore` guarantees (ports/otp-store.ts), the same cases for every adapter. */
export function runOtpStoreContract(name: string, open: OpenAuthStores): void {
  describe(`one-time code store contract: ${name}`, () => {
    const stores = openForSuite(open);
    const f = new AuthFixtures(4);

    it('keeps one code per phone, counts tries atomically and lets exactly one consumer in', async () => {
      const { otps } = stores();
      const p = f.phone();
      const otp = { phone: p, codeHmac: 'aa', name: 'N', createdAt: T0, expiresAt: T1, attempts: 0, consumedAt: null };
      await otps.saveOtp(otp);
      expect(await otps.findOtp(p)).toMatchObject({ codeHmac: 'aa', name: 'N', attempts: 0, consumedAt: null });
      await otps.saveOtp({ ...otp, codeHmac: 'bb' });
      expect((await otps.findOtp(p))?.codeHmac).toBe('bb');
      expect(await otps.incrementOtpAttempts(p, 'aa')).toBeNull();
      const counts = await Promise.all([1, 2, 3].map(() => otps.incrementOtpAttempts(p, 'bb')));
      expect(counts.slice().sort()).toEqual([1, 2, 3]);
      expect(await otps.consumeOtp(p, 'bb', T0, 3)).toBe(false);
      await otps.saveOtp({ ...otp, codeHmac: 'cc' });
      expect(await otps.consumeOtp(p, 'cc', T1, 5)).toBe(false);
      const wins = await Promise.all([0, 1, 2, 3].map(() => otps.consumeOtp(p, 'cc', T0, 5)));
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect((await otps.findOtp(p))?.consumedAt).not.toBeNull();
      await otps.deleteOtp(p);
      expect(await otps.findOtp(p)).toBeNull();
    });

    it('lists sends of a phone since a time, oldest first', async () => {
      const { otps } = stores();
      const p = f.phone();
      const ip = f.unique('10.0.0.');
      const before = await otps.countOtpSendsSince(T0);
      await otps.recordOtpSend(p, T1, ip);
      await otps.recordOtpSend(p, T0, null);
      await otps.recordOtpSend(f.phone(), T1, ip);
      expect((await otps.listOtpSendsSince(p, T0)).map((t) => Date.parse(t))).toEqual([Date.parse(T0), Date.parse(T1)]);
      expect(await otps.listOtpSendsSince(p, '2030-01-01T00:00:30.000Z')).toHaveLength(1);
      expect(await otps.countOtpSendsSince(T0)).toBe(before + 3);
      expect(await otps.countOtpSendsSince(T0, ip)).toBe(2);
      expect(await otps.countOtpSendsSince('2030-01-01T00:00:30.000Z', ip)).toBe(2);
      expect(await otps.countOtpSendsSince('2030-01-01T00:01:30.000Z', ip)).toBe(0);
    });
  });
}
