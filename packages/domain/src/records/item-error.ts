/** Stable codes of per-item push errors (docs/protocol.md); a list so the wire schema can enumerate them. */
export const ITEM_ERROR_CODES = ['UNKNOWN_REFERENCE', 'CALENDAR_REQUIRED', 'PARENT_REQUIRED', 'INVALID_RRULE', 'INVALID_EXDATE', 'INVALID_FIELD'] as const;
/** One per-item push error code. */
export type ItemErrorCode = (typeof ITEM_ERROR_CODES)[number];

/** A per-item push error as it goes on the wire; per-item errors are results, not exceptions. */
export interface ItemError {
  readonly code: ItemErrorCode;
  readonly message: string;
  readonly retryable: boolean;
}

/** Builds a non-retryable per-item error (every validation error is one). */
export function itemError(code: ItemErrorCode, message: string, retryable = false): ItemError {
  return { code, message, retryable };
}

/** Either a value or a per-item error: validation steps return this instead of throwing. */
export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ItemError };

/** Wraps a successful value. */
export function ok<T>(value: T): Checked<T> {
  return { ok: true, value };
}

/** Wraps a per-item error. */
export function fail<T>(error: ItemError): Checked<T> {
  return { ok: false, error };
}
