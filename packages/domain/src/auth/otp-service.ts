import { DomainError, ErrorCode } from '../errors.js';
import type { OtpRecord, OtpStore } from '../ports/otp-store.js';
import type { Clock } from '../ports/clock.js';
import type { Random } from '../ports/random.js';
import type { SmsSender } from '../ports/sms-sender.js';
import { callingCodeOf } from './calling-code.js';
import { generateOtpCode, hmacEquals, otpHmac } from './otp-code.js';

/** The OTP limits (docs/api.md, configuration `OTP_*`). */
export interface OtpPolicy {
  readonly ttlSeconds: number;
  readonly maxAttempts: number;
  readonly resendSeconds: number;
  readonly maxSendsPerHour: number;
  /** Server key of the HMAC that codes are stored under. */
  readonly hmacKey: string;
  /** Codes sent per hour to all phones together (SMS_MAX_PER_HOUR): past it 429 SMS_BUDGET_EXCEEDED. */
  readonly smsMaxPerHour: number;
  /** Codes sent per hour at the request of one address (SMS_MAX_PER_IP_PER_HOUR). */
  readonly smsMaxPerIpPerHour: number;
  /** Country calling codes that may receive codes, comma-separated (SMS_ALLOWED_COUNTRIES, e.g. `1,44,49`); undefined: all. */
  readonly allowedCountries?: string | undefined;
}

/** The answer of send-otp. */
export interface SendOtpResult {
  readonly expiresInSeconds: number;
  readonly resendAfterSeconds: number;
}

const HOUR_MS = 3_600_000;

/** Retry-After of the hourly SMS budgets: a sliding hour frees a slot as soon as its oldest send turns an hour old; a few minutes is honest without reading it. */
const RETRY_BUDGET_SECONDS = 300;

function secondsUntil(untilMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((untilMs - nowMs) / 1000));
}

/**
 * Issues and checks one-time codes: cooldown, hourly cap, TTL, attempt limit, single use. Returns
 * the stored code record on success so the caller knows the name given at send time.
 */
export class OtpService {
  readonly #allowedCallingCodes: readonly string[] | null;

  constructor(
    private readonly store: OtpStore,
    private readonly sms: SmsSender,
    private readonly clock: Clock,
    private readonly random: Random,
    private readonly policy: OtpPolicy,
  ) {
    const codes = policy.allowedCountries?.split(',').map((c) => c.trim().replace(/^\+/, '')).filter((c) => c !== '');
    this.#allowedCallingCodes = codes === undefined || codes.length === 0 ? null : codes;
  }

  /**
   * Sends a new code (replacing any previous one) or throws the limit that stops it: a country not
   * allowed (400), the phone's cooldown and hourly cap, the requesting address's hourly cap, and
   * the hourly budget of all codes together (SMS pumping: an attacker paid per message cannot
   * spend more than the budget, from any number of addresses). `ip` is the requester's address.
   */
  async send(phone: string, name: string | null, ip: string | null = null): Promise<SendOtpResult> {
    const allowed = this.#allowedCallingCodes;
    if (allowed !== null && !allowed.includes(callingCodeOf(phone) ?? '')) {
      throw new DomainError(ErrorCode.VALIDATION_ERROR, `codes are not sent to this country (calling codes served: ${allowed.map((c) => `+${c}`).join(', ')})`, [
        { path: '/phone', message: 'country calling code not served' },
      ]);
    }
    const now = this.clock.now();
    const nowMs = now.getTime();
    const hourAgo = new Date(nowMs - HOUR_MS + 1).toISOString();
    const previous = await this.store.findOtp(phone);
    if (previous && previous.consumedAt === null) {
      const allowedAt = Date.parse(previous.createdAt) + this.policy.resendSeconds * 1000;
      if (nowMs < allowedAt) {
        throw new DomainError(ErrorCode.OTP_RESEND_TOO_SOON, 'a code was sent recently; wait before asking again', undefined, secondsUntil(allowedAt, nowMs));
      }
    }
    const sends = await this.store.listOtpSendsSince(phone, hourAgo);
    if (sends.length >= this.policy.maxSendsPerHour) {
      const oldest = Date.parse(sends[0] ?? now.toISOString());
      throw new DomainError(ErrorCode.RATE_LIMITED, 'too many codes sent to this phone; try again later', undefined, secondsUntil(oldest + HOUR_MS, nowMs));
    }
    if (ip !== null && (await this.store.countOtpSendsSince(hourAgo, ip)) >= this.policy.smsMaxPerIpPerHour) {
      throw new DomainError(ErrorCode.RATE_LIMITED, 'too many codes requested from this address; try again later', undefined, RETRY_BUDGET_SECONDS);
    }
    if ((await this.store.countOtpSendsSince(hourAgo)) >= this.policy.smsMaxPerHour) {
      throw new DomainError(ErrorCode.SMS_BUDGET_EXCEEDED, 'the hourly budget of sign-in codes is spent; try again later', undefined, RETRY_BUDGET_SECONDS);
    }
    await this.store.recordOtpSend(phone, now.toISOString(), ip);
    const code = generateOtpCode(this.random);
    const codeHmac = otpHmac(this.policy.hmacKey, phone, code);
    await this.store.saveOtp({
      phone,
      codeHmac,
      name,
      createdAt: now.toISOString(),
      expiresAt: new Date(nowMs + this.policy.ttlSeconds * 1000).toISOString(),
      attempts: 0,
      consumedAt: null,
    });
    try {
      await this.sms.send(phone, `Your sign-in code is ${code}. It expires in ${Math.ceil(this.policy.ttlSeconds / 60)} minutes.`);
    } catch (sendError) {
      // No usable code may survive a failed send (neither the new one nor an older one).
      await this.store.deleteOtp(phone);
      const failure = new DomainError(ErrorCode.SMS_FAILED, 'the SMS gateway did not accept the message');
      // The sender's reason (unreachable, timed out, the gateway's answer) is for the operator's log only.
      failure.cause = sendError;
      throw failure;
    }
    return { expiresInSeconds: this.policy.ttlSeconds, resendAfterSeconds: this.policy.resendSeconds };
  }

  /** Consumes the phone's code if `code` is it; throws OTP_* errors otherwise. */
  async verify(phone: string, code: string): Promise<OtpRecord> {
    const now = this.clock.now();
    const otp = await this.store.findOtp(phone);
    if (!otp || otp.consumedAt !== null || Date.parse(otp.expiresAt) <= now.getTime()) {
      throw new DomainError(ErrorCode.OTP_EXPIRED, 'no live code for this phone; ask for a new one');
    }
    if (otp.attempts >= this.policy.maxAttempts) throw this.attemptsExceeded(otp, now.getTime());
    const candidate = otpHmac(this.policy.hmacKey, phone, code);
    if (!hmacEquals(candidate, otp.codeHmac)) {
      const attempts = await this.store.incrementOtpAttempts(phone, otp.codeHmac);
      if (attempts !== null && attempts > this.policy.maxAttempts) throw this.attemptsExceeded(otp, now.getTime());
      throw new DomainError(ErrorCode.OTP_INVALID, 'wrong code');
    }
    const consumed = await this.store.consumeOtp(phone, otp.codeHmac, now.toISOString(), this.policy.maxAttempts);
    if (!consumed) throw new DomainError(ErrorCode.OTP_EXPIRED, 'no live code for this phone; ask for a new one');
    return otp;
  }

  private attemptsExceeded(otp: OtpRecord, nowMs: number): DomainError {
    const resendAt = Date.parse(otp.createdAt) + this.policy.resendSeconds * 1000;
    return new DomainError(ErrorCode.OTP_ATTEMPTS_EXCEEDED, 'too many wrong codes; ask for a new one', undefined, secondsUntil(resendAt, nowMs));
  }
}
