/**
 * Stable error codes of the service. The domain throws `DomainError(code)`; the HTTP layer maps a
 * code to a status and the error envelope (docs/api.md). Never recognise an error by its message text.
 */
export const ErrorCode = {
  VALIDATION_ERROR: 'VALIDATION_ERROR',
  EMPTY_CHANGESET: 'EMPTY_CHANGESET',
  INVALID_JSON: 'INVALID_JSON',
  OTP_INVALID: 'OTP_INVALID',
  OTP_EXPIRED: 'OTP_EXPIRED',
  UNAUTHORIZED: 'UNAUTHORIZED',
  TOKEN_EXPIRED: 'TOKEN_EXPIRED',
  REFRESH_INVALID: 'REFRESH_INVALID',
  INVALID_CREDENTIALS: 'INVALID_CREDENTIALS',
  WRONG_TOKEN_TYPE: 'WRONG_TOKEN_TYPE',
  NOT_FOUND: 'NOT_FOUND',
  EMAIL_TAKEN: 'EMAIL_TAKEN',
  CONFLICT_RESOLVED: 'CONFLICT_RESOLVED',
  /** Restore of a conflict whose parent record (calendar, event, task) is no longer live. */
  UNKNOWN_REFERENCE: 'UNKNOWN_REFERENCE',
  BATCH_TOO_LARGE: 'BATCH_TOO_LARGE',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  RATE_LIMITED: 'RATE_LIMITED',
  OTP_ATTEMPTS_EXCEEDED: 'OTP_ATTEMPTS_EXCEEDED',
  OTP_RESEND_TOO_SOON: 'OTP_RESEND_TOO_SOON',
  SMS_FAILED: 'SMS_FAILED',
  /** The hourly budget of SMS codes for all users together (SMS_MAX_PER_HOUR) is spent. */
  SMS_BUDGET_EXCEEDED: 'SMS_BUDGET_EXCEEDED',
  NOT_READY: 'NOT_READY',
  /** The database could not be reached for this request (connection lost or refused); retry later. */
  DATABASE_UNAVAILABLE: 'DATABASE_UNAVAILABLE',
  /** This node holds its maximum of open notification streams (STREAM_MAX_CONNECTIONS). */
  TOO_MANY_STREAMS: 'TOO_MANY_STREAMS',
  INTERNAL: 'INTERNAL',
} as const;

/** One of the stable error codes. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * The one error class the domain raises. `details` must never hold secrets, SQL or stack traces;
 * `retryAfterSeconds` feeds the `Retry-After` header (429 and 503 answers).
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** True when `e` is a DomainError, optionally of the given code. */
export function isDomainError(e: unknown, code?: ErrorCode): e is DomainError {
  return e instanceof DomainError && (code === undefined || e.code === code);
}
