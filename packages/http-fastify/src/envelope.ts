import type { ErrorCode } from '@calsync/domain';
import type { errorEnvelopeSchema } from '@calsync/wire';
import type { Static } from '@sinclair/typebox';

/** The success envelope of every JSON answer except /metrics and /api-docs-json. */
export interface SuccessEnvelope<T> {
  readonly success: true;
  readonly data: T;
}

/** The error envelope of every failure: the wire schema's type. */
export type ErrorEnvelope = Static<typeof errorEnvelopeSchema>;

/** Wraps a route's result in the success envelope. */
export function ok<T>(data: T): SuccessEnvelope<T> {
  return { success: true, data };
}

/** Builds the error envelope; `details` is left out when undefined. */
export function errorEnvelope(code: ErrorCode, message: string, details?: unknown): ErrorEnvelope {
  return { success: false, error: details === undefined ? { code, message } : { code, message, details } };
}
