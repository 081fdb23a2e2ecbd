/**
 * Why a request failed, as the sync loop needs to know it:
 * - `network`: no answer (offline, connection reset, timeout); retried with backoff
 * - `server`: 5xx; retried with backoff (after Retry-After when sent)
 * - `rate-limited`: 429; retried after Retry-After
 * - `too-large`: 413; the batch is split
 * - `signed-out`: the session ended (refresh refused, token revoked); the user must sign in
 * - `rejected`: any other 4xx; not retried as is
 */
export type ApiErrorKind = 'network' | 'server' | 'rate-limited' | 'too-large' | 'signed-out' | 'rejected';

/** A failed API request with the server's error code (docs/api.md) when there was an answer. */
export class ApiError extends Error {
  constructor(
    readonly kind: ApiErrorKind,
    /** HTTP status; 0 when there was no answer. */
    readonly status: number,
    /** The envelope's `error.code`, or `NETWORK_ERROR` / `BAD_RESPONSE`. */
    readonly code: string,
    message: string,
    /** From the Retry-After header, when the server sent one. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** True when the same request may succeed later without any change. */
  get transient(): boolean {
    return this.kind === 'network' || this.kind === 'server' || this.kind === 'rate-limited';
  }
}

/** The kind of a failed answer with this status. */
export function kindOfStatus(status: number): ApiErrorKind {
  if (status === 429) return 'rate-limited';
  if (status === 413) return 'too-large';
  if (status === 401 || status === 403) return 'signed-out';
  if (status >= 500) return 'server';
  return 'rejected';
}

/** Retry-After (delta seconds or an HTTP date) in milliseconds, or null. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
