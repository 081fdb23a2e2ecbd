import type { OtpRecord, OtpStore } from '@calsync/domain';

/** The index of the first of `sorted` (ascending) that is at least `from`. */
function firstAtLeast(sorted: readonly number[], from: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < from) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Inserts `at` into `sorted` (ascending), after any equal value: an append when sends come in time order. */
function insertSorted(sorted: number[], at: number): void {
  let i = sorted.length;
  while (i > 0 && sorted[i - 1]! > at) i--;
  sorted.splice(i, 0, at);
}

/**
 * OtpStore in memory. Every method completes its check-and-write without awaiting in between,
 * so it is atomic under the event loop, as the contract requires.
 *
 * The send times are also kept sorted, in all and per IP, so counting the sends since a time is a
 * binary search: a long property run signs in tens of thousands of times within one hour of its
 * clock, and a scan of every earlier send on each sign-in made such runs quadratic.
 */
export class InMemoryOtpStore implements OtpStore {
  readonly otps = new Map<string, OtpRecord>();
  readonly sendLog: { phone: string; at: string; ip: string | null }[] = [];
  readonly #sendTimes: number[] = [];
  readonly #sendTimesByIp = new Map<string, number[]>();
  readonly #sendsByPhone = new Map<string, string[]>();

  async findOtp(phone: string): Promise<OtpRecord | null> {
    return this.otps.get(phone) ?? null;
  }

  async saveOtp(otp: OtpRecord): Promise<void> {
    this.otps.set(otp.phone, { ...otp });
  }

  async deleteOtp(phone: string): Promise<void> {
    this.otps.delete(phone);
  }

  async recordOtpSend(phone: string, at: string, ip: string | null): Promise<void> {
    this.sendLog.push({ phone, at, ip });
    const time = Date.parse(at);
    insertSorted(this.#sendTimes, time);
    if (ip !== null) {
      const byIp = this.#sendTimesByIp.get(ip) ?? [];
      insertSorted(byIp, time);
      this.#sendTimesByIp.set(ip, byIp);
    }
    this.#sendsByPhone.set(phone, [...(this.#sendsByPhone.get(phone) ?? []), at]);
  }

  async countOtpSendsSince(since: string, ip?: string): Promise<number> {
    const times = ip === undefined ? this.#sendTimes : (this.#sendTimesByIp.get(ip) ?? []);
    return times.length - firstAtLeast(times, Date.parse(since));
  }

  async listOtpSendsSince(phone: string, since: string): Promise<string[]> {
    const from = Date.parse(since);
    return (this.#sendsByPhone.get(phone) ?? []).filter((at) => Date.parse(at) >= from).sort((a, b) => Date.parse(a) - Date.parse(b));
  }

  async incrementOtpAttempts(phone: string, codeHmac: string): Promise<number | null> {
    const otp = this.otps.get(phone);
    if (!otp || otp.codeHmac !== codeHmac) return null;
    const next = { ...otp, attempts: otp.attempts + 1 };
    this.otps.set(phone, next);
    return next.attempts;
  }

  async consumeOtp(phone: string, codeHmac: string, now: string, maxAttempts: number): Promise<boolean> {
    const otp = this.otps.get(phone);
    if (!otp || otp.codeHmac !== codeHmac || otp.consumedAt !== null) return false;
    if (Date.parse(otp.expiresAt) <= Date.parse(now) || otp.attempts >= maxAttempts) return false;
    this.otps.set(phone, { ...otp, consumedAt: now });
    return true;
  }
}
