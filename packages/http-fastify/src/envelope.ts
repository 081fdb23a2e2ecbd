import type { ErrorCode } from '@calsync/domain';

/** The success envelope of every JSON answer except /metrics and /api-docs-json (API.md). */
export interface SuccessEnvelope<T> {
  readonly success: true;
  readonly data: T;
}

/** The error envelope of every failure (API.md "Envelope and errors"). */
export interface ErrorEnvelope {
  readonly success: false;
  readonly error: { readonly code: ErrorCode; readonly message: string; readonly details?: unknown };
}

/** Wraps a route's result in the success envelope. */
export function ok<T>(data: T): SuccessEnvelope<T> {
  return { success: true, data };
}

/** Builds the error envelope; `details` is left out when undefined. */
export function errorEnvelope(code: ErrorCode, message: string, details?: unknown): ErrorEnvelope {
  return { success: false, error: details === undefined ? { code, message } : { code, message, details } };
}
