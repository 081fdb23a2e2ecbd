import type { OtpRecord, OtpStore } from '@calsync/domain';

/**
 * Send times in time order, each with the text it was recorded as: what is since a time is one
 * binary search away.
 */
class SendTimes {
  readonly #times: number[] = [];
  readonly #texts: string[] = [];

  /** Adds a send, after any at the same time: an append when sends come in time order. */
  add(at: string): void {
    const time = Date.parse(at);
    let i = this.#times.length;
    while (i > 0 && this.#times[i - 1]! > time) i--;
    this.#times.splice(i, 0, time);
    this.#texts.splice(i, 0, at);
  }

  /** How many sends are at or after `since`. */
  countSince(since: string): number {
    return this.#times.length - this.#firstAtOrAfter(since);
  }

  /** The sends at or after `since`, oldest first. */
  since(since: string): string[] {
    return this.#texts.slice(this.#firstAtOrAfter(since));
  }

  #firstAtOrAfter(since: string): number {
    const from = Date.parse(since);
    let lo = 0;
    let hi = this.#times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#times[mid]! < from) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Adds `at` to the send times kept under `key`. */
function addUnder(index: Map<string, SendTimes>, key: string, at: string): void {
  const times = index.get(key) ?? new SendTimes();
  times.add(at);
  index.set(key, times);
}

/**
 * OtpStore in memory. Every method completes its check-and-write without awaiting in between,
 * so it is atomic under the event loop, as the contract requires.
 *
 * Sends are kept in time order, in all, per IP and per phone, so what was sent since a time is a
 * binary search: a long property run signs in tens of thousands of times within one hour of its
 * clock, and a scan of every earlier send on each sign-in made such runs quadratic.
 */
export class InMemoryOtpStore implements OtpStore {
  readonly otps = new Map<string, OtpRecord>();
  readonly #sends = new SendTimes();
  readonly #sendsByIp = new Map<string, SendTimes>();
  readonly #sendsByPhone = new Map<string, SendTimes>();

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
    this.#sends.add(at);
    if (ip !== null) addUnder(this.#sendsByIp, ip, at);
    addUnder(this.#sendsByPhone, phone, at);
  }

  async countOtpSendsSince(since: string, ip?: string): Promise<number> {
    const sends = ip === undefined ? this.#sends : this.#sendsByIp.get(ip);
    return sends?.countSince(since) ?? 0;
  }

  async listOtpSendsSince(phone: string, since: string): Promise<string[]> {
    return this.#sendsByPhone.get(phone)?.since(since) ?? [];
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
