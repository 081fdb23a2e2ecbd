import type { Random, SyncApi, SyncService } from '@calsync/domain';
import { build, type TestApp } from '@calsync/http-fastify/test-support';
import { FakeTokenSigner, ManualAuthClock, cryptoRandom, type CapturingSmsSender, type InMemorySyncStore } from '@calsync/testkit';

/**
 * The whole service in memory: the real Fastify app (routes, schemas, sign-in, rate limit) over the
 * real domain services and testkit's in-memory stores, reached through a `fetch` that goes into
 * `app.inject`. Clients under test talk HTTP to it exactly as to the real process, without sockets.
 */
export interface InMemoryService {
  readonly app: TestApp['app'];
  readonly fetch: typeof fetch;
  readonly sms: CapturingSmsSender;
  readonly syncStore: InMemorySyncStore;
  readonly sync: SyncService;
  /** The sign-in clock: advance it to expire access tokens for real. */
  readonly clock: ManualAuthClock;
  close(): Promise<void>;
}

/** Options of the in-memory service. */
export interface InMemoryServiceOptions {
  /** Configuration on top of the test defaults (e.g. BODY_LIMIT_BYTES). */
  readonly env?: Record<string, string>;
  /** Wraps the engine the routes call, e.g. to check invariants around every push. */
  readonly wrapSync?: (sync: SyncService, store: InMemorySyncStore) => SyncApi;
  /** The service's randomness (default: the CSPRNG), e.g. to fix how the uids it makes sort. */
  readonly random?: Random;
  /** App passwords, subscription feeds and CalDAV too (off by default). */
  readonly interop?: boolean;
}

/** Builds the in-memory service. */
export async function startInMemoryService({ env = {}, wrapSync, random = cryptoRandom, interop = false }: InMemoryServiceOptions = {}): Promise<InMemoryService> {
  const clock = new ManualAuthClock(new Date());
  const { app, sms, store: syncStore, sync } = await build({
    env: { RATE_LIMIT_MAX_REQUESTS: '1000000', AUTH_RATE_LIMIT_MAX_REQUESTS: '100000', OTP_MAX_SENDS_PER_HOUR: '1000', SMS_MAX_PER_IP_PER_HOUR: '1000000', SMS_MAX_PER_HOUR: '1000000', OTP_RESEND_SECONDS: '0', ...env, SESSION_CACHE_SECONDS: '0' },
    clock,
    tokens: new FakeTokenSigner(),
    random,
    interop,
    ...(wrapSync ? { wrapSync } : {}),
  });
  const injectFetch = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const res = await app.inject({
      method: (init?.method ?? 'GET') as 'GET',
      url: url.pathname + url.search,
      headers: (init?.headers ?? {}) as Record<string, string>,
      ...(typeof init?.body === 'string' ? { payload: init.body } : {}),
    });
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, String(v));
    return new Response(res.statusCode === 204 || res.statusCode === 304 ? null : res.body, { status: res.statusCode, headers });
  };
  return { app, fetch: injectFetch as typeof fetch, sms, syncStore, sync, clock, close: () => app.close() };
}
