import { SystemClock } from '@calsync/adapters-node';
import { CursorCodec, SyncService, type AuthService } from '@calsync/domain';
import { CapturingSmsSender, CheapPasswordHasher, FixedClock, inMemoryAuthStores, InMemorySyncStore, SeededRandom, type InMemoryUserStore } from '@calsync/testkit';
import { createAuthService } from '../src/auth/create-auth-service.js';
import type { AppConfig } from '../src/config-types.js';

/** Sign-in and the sync engine on in-memory stores, wired as main.ts wires the real ones. */
export interface InMemorySignIn {
  readonly auth: AuthService;
  readonly sync: SyncService;
  /** The record store; its `changes` feed carries notifications and session ends. */
  readonly store: InMemorySyncStore;
  /** The codes sent. */
  readonly sms: CapturingSmsSender;
  readonly users: InMemoryUserStore;
}

/**
 * The one in-memory sign-in of the HTTP tests: `createAuthService` (real JWTs from `config`, limits
 * from `config`, so SESSION_CACHE_SECONDS and the OTP variables apply) over in-memory stores, a
 * cheap password hasher and a seeded random; session ends announced on the store's feed.
 */
export function inMemorySignIn(config: AppConfig, seed = 1): InMemorySignIn {
  const store = new InMemorySyncStore();
  const stores = inMemoryAuthStores();
  const sms = new CapturingSmsSender();
  const sync = new SyncService({ store, clock: new FixedClock(), cursorCodec: new CursorCodec(config.syncCursorSecret) });
  const auth = createAuthService({
    config,
    ...stores,
    sync,
    passwordHasher: new CheapPasswordHasher(),
    clock: new SystemClock(),
    random: new SeededRandom(seed),
    smsSender: sms,
    sessionEnds: store.changes,
  });
  return { auth, sync, store, sms, users: stores.users };
}
