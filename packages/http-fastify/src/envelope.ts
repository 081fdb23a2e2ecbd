import type { ErrorCode } from '@calsync/domain';
import type { ErrorEnvelopeWire, SuccessEnvelopeWire } from '@calsync/wire';

/** The success envelope of every JSON answer except /metrics and /api-docs-json: the wire's type. */
export type SuccessEnvelope<T> = SuccessEnvelopeWire<T>;

/** The error envelope of every failure: the wire schema's type. */
export type ErrorEnvelope = ErrorEnvelopeWire;

/** Wraps a route's result in the success envelope. */
export function ok<T>(data: T): SuccessEnvelope<T> {
  return { success: true, data };
}

/** Builds the error envelope; `details` is left out when undefined. */
export function errorEnvelope(code: ErrorCode, message: string, details?: unknown): ErrorEnvelope {
  return { success: false, error: details === undefined ? { code, message } : { code, message, details } };
}
