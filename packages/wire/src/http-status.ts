import type { ErrorCode } from '@calsync/domain/rules';

/**
 * HTTP status of each stable error code: the only place codes meet statuses. The server's error
 * handler answers with it and the OpenAPI document groups each route's codes by it.
 */
export const HTTP_STATUS_BY_CODE = {
  VALIDATION_ERROR: 400,
  EMPTY_CHANGESET: 400,
  INVALID_JSON: 400,
  OTP_INVALID: 400,
  OTP_EXPIRED: 400,
  UNAUTHORIZED: 401,
  TOKEN_EXPIRED: 401,
  REFRESH_INVALID: 401,
  INVALID_CREDENTIALS: 401,
  WRONG_TOKEN_TYPE: 403,
  NOT_FOUND: 404,
  EMAIL_TAKEN: 409,
  CONFLICT_RESOLVED: 409,
  UNKNOWN_REFERENCE: 409,
  BATCH_TOO_LARGE: 413,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  OTP_ATTEMPTS_EXCEEDED: 429,
  OTP_RESEND_TOO_SOON: 429,
  SMS_BUDGET_EXCEEDED: 429,
  SMS_FAILED: 502,
  NOT_READY: 503,
  DATABASE_UNAVAILABLE: 503,
  TOO_MANY_STREAMS: 503,
  INTERNAL: 500,
} as const satisfies Readonly<Record<ErrorCode, number>>;
