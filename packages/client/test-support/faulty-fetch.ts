/**
 * What can go wrong between a client and the service, one per request:
 * - `network`: the request never arrives (connection refused)
 * - `drop-response`: the service handles it, the answer is lost (the client sees a network error)
 * - `duplicate`: the request arrives twice (a retrying proxy); the client sees the second answer
 * - `server-error`: 500 without reaching the service
 * - `rate-limited`: 429 with Retry-After, without reaching the service
 * - `token-expired`: 401 TOKEN_EXPIRED for a request with a token, without reaching the service
 * - `crash`: the service handles it and the client process dies before it sees the answer
 */
export type Fault = 'network' | 'drop-response' | 'duplicate' | 'server-error' | 'rate-limited' | 'token-expired' | 'crash';

function envelope(status: number, code: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ success: false, error: { code, message: `injected ${code}` } }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/**
 * A fetch in front of another that injects faults chosen by `next` (null: pass through). Counts
 * what it injected; after a `crash` every call hangs, as a dead process would.
 */
export class FaultyFetch {
  readonly injected: Partial<Record<Fault, number>> = {};
  crashed = false;
  #onCrash: (() => void) | null = null;
  /** Resolves when a `crash` fault fired. */
  readonly crash: Promise<void>;

  constructor(
    private readonly inner: typeof fetch,
    public next: (request: { method: string; path: string; authorized: boolean }) => Fault | null = () => null,
  ) {
    this.crash = new Promise((resolve) => {
      this.#onCrash = resolve;
    });
  }

  readonly fetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    if (this.crashed) return new Promise<Response>(() => undefined);
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = (init?.headers ?? {}) as Record<string, string>;
    const fault = this.next({ method: init?.method ?? 'GET', path: url.pathname, authorized: typeof headers.authorization === 'string' });
    if (fault === null) return this.inner(input, init);
    if (fault === 'token-expired' && !headers.authorization) return this.inner(input, init);
    this.injected[fault] = (this.injected[fault] ?? 0) + 1;
    switch (fault) {
      case 'network':
        throw new TypeError('fetch failed (injected: no connection)');
      case 'drop-response':
        await this.inner(input, init);
        throw new TypeError('fetch failed (injected: answer lost)');
      case 'duplicate':
        await this.inner(input, init);
        return this.inner(input, init);
      case 'server-error':
        return envelope(500, 'INTERNAL');
      case 'rate-limited':
        return envelope(429, 'RATE_LIMITED', { 'retry-after': '1' });
      case 'token-expired':
        return envelope(401, 'TOKEN_EXPIRED');
      case 'crash':
        await this.inner(input, init);
        this.crashed = true;
        this.#onCrash?.();
        return new Promise<Response>(() => undefined);
    }
  }) as typeof fetch;
}
