import { AuthService, type ChangeFeed, type Clock, type DeviceStore, type OtpStore, type PasswordHasher, type Random, type SessionStore, type SmsSender, type SyncApi, type TokenSigner, type UserStore } from '@calsync/domain';
import type { AppConfig } from '../config-types.js';
import { FastJwtTokenSigner } from '@calsync/adapters-node';

/**
 * What the sign-in service is built from: the domain's ports. main.ts (the composition root, the
 * only place that knows the adapters) passes the PostgreSQL stores and scrypt; tests pass whatever
 * they test with.
 */
export interface AuthServiceWiring {
  readonly config: AppConfig;
  readonly users: UserStore;
  /** The sync engine, which makes a new user's default calendar. */
  readonly sync: Pick<SyncApi, 'push'>;
  readonly devices: DeviceStore;
  readonly sessions: SessionStore;
  readonly otps: OtpStore;
  readonly passwordHasher: PasswordHasher;
  readonly clock: Clock;
  readonly random: Random;
  readonly smsSender: SmsSender;
  /** Signs and checks tokens; JWTs with the configured secrets (fast-jwt) when absent. */
  readonly tokens?: TokenSigner;
  /** Where ended sessions are announced so notification streams close on every node (optional). */
  readonly sessionEnds?: Pick<ChangeFeed, 'announceSessionEnd'>;
  /** Told when a replayed refresh token ended a session (main.ts counts and logs it). */
  readonly onRefreshReplay?: (replay: { readonly userId: number; readonly deviceUid: string | null }) => void;
}

/** The sign-in service on the given ports, its tokens signed with the configured secrets and its limits from the configuration. */
export function createAuthService(deps: AuthServiceWiring): AuthService {
  const { config } = deps;
  return new AuthService(
    {
      users: deps.users,
      sync: deps.sync,
      devices: deps.devices,
      sessions: deps.sessions,
      otps: deps.otps,
      sms: deps.smsSender,
      hasher: deps.passwordHasher,
      tokens: deps.tokens ?? new FastJwtTokenSigner(config.jwt),
      clock: deps.clock,
      random: deps.random,
      ...(deps.sessionEnds ? { sessionEnds: deps.sessionEnds } : {}),
    },
    {
      accessTtlSeconds: config.jwt.accessTtlSeconds,
      refreshTtlSeconds: config.jwt.refreshTtlSeconds,
      sessionCacheSeconds: config.sessionCacheSeconds,
      otp: config.otp,
      ...(deps.onRefreshReplay ? { onReplay: deps.onRefreshReplay } : {}),
    },
  );
}
