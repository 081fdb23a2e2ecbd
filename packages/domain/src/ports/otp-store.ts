/** The one live (or last) one-time code of a phone. Only its HMAC is stored. */
export interface OtpRecord {
  readonly phone: string;
  readonly codeHmac: string;
  /** The name given at send-otp, used if verification creates the user. */
  readonly name: string | null;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly attempts: number;
  readonly consumedAt: string | null;
}

/**
 * Storage of one-time codes and the log of sends. Guarantees (checked by `runOtpStoreContract` in
 * testkit, for every adapter):
 * - one code per phone: `saveOtp` replaces the previous one;
 * - `consumeOtp` succeeds for exactly one of concurrent callers, and only for an unused,
 *   unexpired code with the given HMAC and fewer than `maxAttempts` tries;
 * - `incrementOtpAttempts` is atomic (each call sees its own count).
 */
export interface OtpStore {
  findOtp(phone: string): Promise<OtpRecord | null>;
  /** Stores a new code for the phone, replacing any previous one. */
  saveOtp(otp: OtpRecord): Promise<void>;
  deleteOtp(phone: string): Promise<void>;
  /** Appends to the send log that the hourly caps count; `ip` is the requester's address (null: unknown). */
  recordOtpSend(phone: string, at: string, ip: string | null): Promise<void>;
  /** Sends logged for the phone at or after `since`, oldest first (their times). */
  listOtpSendsSince(phone: string, since: string): Promise<string[]>;
  /** How many sends were logged at or after `since`: to every phone, or only those requested from `ip`. */
  countOtpSendsSince(since: string, ip?: string): Promise<number>;
  /** Adds one wrong try to the phone's code if it still has this HMAC; the new count, or null. */
  incrementOtpAttempts(phone: string, codeHmac: string): Promise<number | null>;
  /** Marks the code used if it has this HMAC, is unused, unexpired at `now` and has fewer than `maxAttempts` tries. */
  consumeOtp(phone: string, codeHmac: string, now: string, maxAttempts: number): Promise<boolean>;
}
