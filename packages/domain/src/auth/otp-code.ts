import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Random } from '../ports/random.js';
import { OTP_LENGTH } from '../rules/input-rules.js';

/** A uniformly random 6-digit code, drawn from the Random port (a CSPRNG, no modulo bias). */
export function generateOtpCode(random: Random): string {
  return String(random.int(10 ** OTP_LENGTH)).padStart(OTP_LENGTH, '0');
}

/**
 * What is stored instead of the code: HMAC-SHA256 under a server key of phone and code, so a
 * leaked table reveals no code and a code of one phone says nothing about another's.
 */
export function otpHmac(key: string, phone: string, code: string): string {
  return createHmac('sha256', key).update(`${phone}\n${code}`).digest('hex');
}

/** Constant-time comparison of two hex HMACs. */
export function hmacEquals(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}
