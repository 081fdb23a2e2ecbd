import { PostgresAuthStore, PostgresUserStore, ScryptPasswordHasher, type Database, type ScryptParams } from '@calsync/adapters-postgres';
import { AuthService, type Clock, type PasswordHasher, type Random, type SmsSender } from '@calsync/domain';
import type { AppConfig } from '../config-types.js';
import { FastJwtTokenSigner } from './jwt-token-signer.js';

/** What the sign-in module is built from (main.ts passes the real ones, tests cheaper ones). */
export interface AuthModuleDeps {
  readonly db: Database['db'];
  readonly config: AppConfig;
  readonly clock: Clock;
  readonly random: Random;
  readonly smsSender: SmsSender;
  /** Override of the password hasher (tests use cheaper scrypt parameters). */
  readonly passwordHasher?: PasswordHasher;
  /** scrypt parameters when no hasher is given (default N=2^17, r=8, p=1). */
  readonly scrypt?: ScryptParams;
}

/** Seconds an access token's live-session check may be reused in this process. */
export const SESSION_CHECK_CACHE_SECONDS = 2;

/** Composes the sign-in service from its adapters, so main.ts needs one line. */
export async function createAuthModule(deps: AuthModuleDeps): Promise<{ auth: AuthService }> {
  const { config } = deps;
  const auth = new AuthService(
    {
      users: new PostgresUserStore(deps.db),
      store: new PostgresAuthStore(deps.db),
      sms: deps.smsSender,
      hasher: deps.passwordHasher ?? new ScryptPasswordHasher(deps.scrypt),
      tokens: new FastJwtTokenSigner(config.jwt),
      clock: deps.clock,
      random: deps.random,
    },
    {
      accessTtlSeconds: config.jwt.accessTtlSeconds,
      refreshTtlSeconds: config.jwt.refreshTtlSeconds,
      sessionCacheSeconds: SESSION_CHECK_CACHE_SECONDS,
      otp: config.otp,
    },
  );
  return { auth };
}
