import { backoffMs } from '@calsync/domain/rules';

/** Longest wait between retries of a failing sync. */
export const MAX_BACKOFF_MS = 60_000;
/** First wait after a failure. */
export const BASE_BACKOFF_MS = 1_000;

/**
 * Exponential backoff with full jitter: a random wait between 0 and min(60 s, 1 s * 2^(n-1)) after
 * the n-th failure in a row, so many devices that lost the server at once do not return at once.
 */
export function backoffDelay(failures: number, random: () => number): number {
  return backoffMs(failures - 1, { baseMs: BASE_BACKOFF_MS, maxMs: MAX_BACKOFF_MS, jitter: 'full' }, random);
}
