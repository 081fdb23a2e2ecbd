import { DomainError, ErrorCode } from '../errors.js';

/** Number of digits of a one-time code (6). */
export const OTP_LENGTH = 6;
/** E.164: `+` and 8 to 15 digits (docs/api.md). */
export const PHONE_PATTERN = /^\+[0-9]{8,15}$/;
/** something@domain.tld (docs/api.md). */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
/** Longest e-mail address accepted (RFC 5321's path limit). */
export const EMAIL_MAX_LENGTH = 254;
/** A device uid: chosen by the client, 1..128 characters of [A-Za-z0-9_.:-]. */
export const DEVICE_UID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
/** Password length bounds; longer passwords are refused, never truncated. */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;
/** Longest user or device name we keep. */
export const NAME_MAX_LENGTH = 200;

function invalid(path: string, message: string): DomainError {
  return new DomainError(ErrorCode.VALIDATION_ERROR, message, [{ path, message }]);
}

/** Throws VALIDATION_ERROR unless `phone` is E.164. */
export function assertPhone(phone: string): void {
  if (!PHONE_PATTERN.test(phone)) throw invalid('/phone', 'phone must be E.164 (+ and 8 to 15 digits)');
}

/** The normalised (trimmed, lower-cased) e-mail, or VALIDATION_ERROR. */
export function normaliseEmail(email: string): string {
  const e = email.trim().toLowerCase();
  if (e.length > EMAIL_MAX_LENGTH || !EMAIL_PATTERN.test(e)) throw invalid('/email', 'email must look like name@domain.tld');
  return e;
}

/** Throws VALIDATION_ERROR unless the password has 8..128 characters. */
export function assertPassword(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw invalid('/password', `password must have ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`);
  }
}

/** Throws VALIDATION_ERROR when a name is too long. */
export function assertName(name: string, path = '/name'): void {
  if (name.length > NAME_MAX_LENGTH) throw invalid(path, `name must have at most ${NAME_MAX_LENGTH} characters`);
}
