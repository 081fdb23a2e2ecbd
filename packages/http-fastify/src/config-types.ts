/**
 * The validated configuration of the service (API.md "Configuration"). `config.ts` builds it from
 * the environment once, at start-up; everything else receives it as a value.
 */
export interface AppConfig {
  readonly nodeEnv: string;
  readonly isProduction: boolean;
  readonly port: number;
  readonly host: string;
  /** `postgres://…`, `pglite://<dir>` or `pglite://memory`. */
  readonly databaseUrl: string;
  readonly databasePoolMax: number;
  readonly logLevel: string;
  readonly corsOrigin: string | string[] | boolean;
  readonly bodyLimitBytes: number;
  readonly redisUrl: string | null;
  readonly rateLimit: {
    readonly windowMs: number;
    /** Per user, on the sync and other protected routes. */
    readonly maxRequests: number;
    /** Per IP, on the public auth routes. */
    readonly authMaxRequests: number;
  };
  readonly jwt: {
    readonly accessSecret: string;
    readonly refreshSecret: string;
    /** Lifetimes in seconds (parsed from `15m`, `90d`, `3600`, …). */
    readonly accessTtlSeconds: number;
    readonly refreshTtlSeconds: number;
    readonly issuer: string;
    readonly audience: string;
  };
  readonly syncCursorSecret: string;
  readonly otp: {
    readonly ttlSeconds: number;
    readonly maxAttempts: number;
    readonly resendSeconds: number;
    readonly maxSendsPerHour: number;
    /** Key of the HMAC that one-time codes are stored under (derived from JWT_SECRET unless OTP_SECRET is set). */
    readonly hmacKey: string;
  };
  /** null: no gateway configured (development sender that logs). */
  readonly smsGateway: { readonly url: string; readonly apiKey: string; readonly sender: string } | null;
}
