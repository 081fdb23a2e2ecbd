import type { OtpRecord, OtpStore } from '@calsync/domain';

/**
 * OtpStore in memory. Every method completes its check-and-write without awaiting in between,
 * so it is atomic under the event loop, as the contract requires.
 */
export class InMemoryOtpStore implements OtpStore {
  readonly otps = new Map<string, OtpRecord>();
  readonly sendLog: { phone: string; at: string; ip: string | null }[] = [];

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
  }

  async countOtpSendsSince(since: string, ip?: string): Promise<number> {
    const from = Date.parse(since);
    return this.sendLog.filter((s) => Date.parse(s.at) >= from && (ip === undefined || s.ip === ip)).length;
  }

  async listOtpSendsSince(phone: string, since: string): Promise<string[]> {
    const from = Date.parse(since);
    return this.sendLog
      .filter((s) => s.phone === phone && Date.parse(s.at) >= from)
      .map((s) => s.at)
      .sort((a, b) => Date.parse(a) - Date.parse(b));
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
