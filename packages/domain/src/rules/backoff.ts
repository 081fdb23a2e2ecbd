/** How a retry loop waits: exponential from `baseMs`, capped at `maxMs`, with a kind of jitter. */
export interface BackoffPolicy {
  readonly baseMs: number;
  readonly maxMs: number;
  /**
   * `full`: a random wait in [0, ceiling), for many clients that lost the server at once;
   * `equal`: in [ceiling / 2, ceiling), a server's own reconnects; `none`: the ceiling itself.
   */
  readonly jitter: 'full' | 'equal' | 'none';
}

/**
 * The wait (ms) before retry number `attempt` (0 for the first retry): the ceiling
 * min(maxMs, baseMs * 2^attempt), jittered by the policy. The one backoff formula of the SDK's sync
 * and notification stream, the server's LISTEN reconnects, its wait for the database at start and
 * its FCM sends.
 */
export function backoffMs(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, Math.min(attempt, 30)));
  switch (policy.jitter) {
    case 'full':
      return Math.floor(random() * ceiling);
    case 'equal':
      return ceiling / 2 + random() * (ceiling / 2);
    case 'none':
      return ceiling;
  }
}
