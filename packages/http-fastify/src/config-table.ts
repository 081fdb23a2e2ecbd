/** How a configuration variable's text is parsed and checked. */
export type ConfigVarType = 'string' | 'integer' | 'duration' | 'secret' | 'url' | 'enum' | 'origins';

/** One configuration variable: everything about it is data here (README, tests and the loader read it). */
export interface ConfigVar {
  /** The environment variable's name. */
  readonly name: string;
  readonly type: ConfigVarType;
  /** Text default used when the variable is unset or empty; undefined: no default. */
  readonly default?: string;
  readonly description: string;
  /** For `integer`: inclusive bounds. */
  readonly min?: number;
  readonly max?: number;
  /** For `enum`: the allowed values. */
  readonly values?: readonly string[];
  /** For `url`: the allowed schemes (without `:`). */
  readonly schemes?: readonly string[];
  /** Start-up refuses without it when NODE_ENV is production. */
  readonly requiredInProduction?: boolean;
  /** For `secret`: shortest accepted value when NODE_ENV is production. */
  readonly minLengthInProduction?: number;
  /**
   * Never undefined once loaded although it has no default: `random` gets a per-process random value
   * (with a warning), `derived` is computed from other variables by a rule in config-rules.ts.
   */
  readonly generated?: 'random' | 'derived';
}

/** Variables that only make sense together: all set (the group is an object) or none (the group is null). */
export interface AllOrNoneGroup {
  readonly allOrNone: { readonly [key: string]: ConfigVar };
}

/** A node of the configuration tree: a variable, a group of nodes, or an all-or-none group. */
export type ConfigNode = ConfigVar | AllOrNoneGroup | ConfigTree;

/** Nested groups of variables; the loaded configuration has the same shape (see `ConfigOf`). */
export interface ConfigTree {
  readonly [key: string]: ConfigNode;
}

const SECRET_MIN = 32;

/**
 * The service's configuration as one declarative tree (the idea of zero-cache's option tables): each
 * leaf names its environment variable, type, default and meaning; the `AppConfig` type is derived
 * from this tree and the loader walks it, so adding a variable is one line here (plus its README row).
 * A variable not listed here is never read by the service.
 */
export const CONFIG_TABLE = {
  nodeEnv: { name: 'NODE_ENV', type: 'enum', default: 'development', values: ['development', 'production', 'test'], description: 'Run mode; production refuses to start without secrets and an SMS gateway.' },
  port: { name: 'PORT', type: 'integer', default: '3000', min: 0, max: 65535, description: 'TCP port the HTTP server listens on.' },
  host: { name: 'HOST', type: 'string', default: '0.0.0.0', description: 'Interface the HTTP server binds to.' },
  databaseUrl: { name: 'DATABASE_URL', type: 'url', default: 'pglite://./.data/pglite', schemes: ['postgres', 'postgresql', 'pglite'], description: 'postgres://… (PostgreSQL server), pglite://<dir> (embedded, kept in dir) or pglite://memory.' },
  databaseStartupTimeoutMs: { name: 'DATABASE_STARTUP_TIMEOUT_MS', type: 'integer', default: '60000', min: 0, max: 3600000, description: 'How long start-up waits (retrying with backoff) for an unreachable database before it exits.' },
  databaseConnectTimeoutMs: { name: 'DATABASE_CONNECT_TIMEOUT_MS', type: 'integer', default: '5000', min: 0, max: 600000, description: 'PostgreSQL: how long a request may wait for a connection (from the pool or a new one) before it answers 503 DATABASE_UNAVAILABLE; 0 waits for ever.' },
  databaseStatementTimeoutMs: { name: 'DATABASE_STATEMENT_TIMEOUT_MS', type: 'integer', default: '15000', min: 0, max: 3600000, description: 'PostgreSQL: how long one statement may go unanswered (a stalled network, a stuck query) before its request answers 503 DATABASE_UNAVAILABLE; 0: no bound.' },
  databasePoolMax: { name: 'DATABASE_POOL_MAX', type: 'integer', default: '10', min: 1, max: 1000, description: 'Maximum PostgreSQL connections in the pool.' },
  logLevel: { name: 'LOG_LEVEL', type: 'enum', default: 'info', values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], description: 'pino log level.' },
  corsOrigin: { name: 'CORS_ORIGIN', type: 'origins', default: '*', description: 'Allowed browser origins: *, true, false, one origin or a comma-separated list.' },
  bodyLimitBytes: { name: 'BODY_LIMIT_BYTES', type: 'integer', default: '1048576', min: 1024, max: 104857600, description: 'Largest accepted request body in bytes (413 PAYLOAD_TOO_LARGE above).' },
  redisUrl: { name: 'REDIS_URL', type: 'url', schemes: ['redis', 'rediss'], description: 'Optional Redis for rate-limit counters shared by several app nodes; in memory when unset.' },
  shutdownTimeoutMs: { name: 'SHUTDOWN_TIMEOUT_MS', type: 'integer', default: '10000', min: 100, max: 600000, description: 'How long shutdown may drain requests and close the database before the process exits anyway.' },
  rateLimit: {
    windowMs: { name: 'RATE_LIMIT_WINDOW_MS', type: 'integer', default: '900000', min: 1000, max: 86400000, description: 'Rate-limit window in milliseconds.' },
    maxRequests: { name: 'RATE_LIMIT_MAX_REQUESTS', type: 'integer', default: '600', min: 1, max: 10000000, description: 'Requests per window per user on the sync and other protected routes, and per IP on the subscription feeds (a counter of their own).' },
    authMaxRequests: { name: 'AUTH_RATE_LIMIT_MAX_REQUESTS', type: 'integer', default: '100', min: 1, max: 10000000, description: 'Requests per window per IP on the public auth routes.' },
  },
  jwt: {
    accessSecret: { name: 'JWT_SECRET', type: 'secret', requiredInProduction: true, minLengthInProduction: SECRET_MIN, generated: 'random', description: 'Signing secret of access tokens (at least 32 characters).' },
    refreshSecret: { name: 'JWT_REFRESH_SECRET', type: 'secret', requiredInProduction: true, minLengthInProduction: SECRET_MIN, generated: 'random', description: 'Signing secret of refresh tokens; must differ from JWT_SECRET.' },
    accessTtlSeconds: { name: 'JWT_ACCESS_EXPIRES_IN', type: 'duration', default: '15m', description: 'Access token lifetime: seconds or a number with s, m, h or d.' },
    refreshTtlSeconds: { name: 'JWT_REFRESH_EXPIRES_IN', type: 'duration', default: '90d', description: 'Refresh token lifetime: seconds or a number with s, m, h or d.' },
    issuer: { name: 'JWT_ISSUER', type: 'string', default: 'calsync', description: 'iss claim of issued tokens (checked on every token).' },
    audience: { name: 'JWT_AUDIENCE', type: 'string', default: 'calsync-api', description: 'aud claim of issued tokens (checked on every token).' },
  },
  sessionCacheSeconds: { name: 'SESSION_CACHE_SECONDS', type: 'integer', default: '2', min: 0, max: 60, description: 'Seconds a live-session check of an access token may be reused in one process (0: check every request).' },
  syncCursorSecret: { name: 'SYNC_CURSOR_SECRET', type: 'secret', requiredInProduction: true, minLengthInProduction: SECRET_MIN, generated: 'random', description: 'HMAC-SHA256 key that signs sync cursors.' },
  otp: {
    hmacKey: { name: 'OTP_SECRET', type: 'secret', generated: 'derived', description: 'Optional HMAC key for stored one-time codes; derived from JWT_SECRET when unset.' },
    ttlSeconds: { name: 'OTP_TTL_SECONDS', type: 'integer', default: '300', min: 30, max: 86400, description: 'Lifetime of a one-time code.' },
    maxAttempts: { name: 'OTP_MAX_ATTEMPTS', type: 'integer', default: '5', min: 1, max: 100, description: 'Wrong tries that kill a one-time code.' },
    resendSeconds: { name: 'OTP_RESEND_SECONDS', type: 'integer', default: '60', min: 0, max: 86400, description: 'Minimum seconds between two codes for one phone.' },
    maxSendsPerHour: { name: 'OTP_MAX_SENDS_PER_HOUR', type: 'integer', default: '5', min: 1, max: 1000, description: 'Codes sent per phone per hour.' },
    smsMaxPerHour: { name: 'SMS_MAX_PER_HOUR', type: 'integer', default: '1000', min: 1, max: 100000000, description: 'Codes sent per hour to all phones together (the SMS budget); 429 SMS_BUDGET_EXCEEDED beyond, and the CalsyncSmsBudgetExceeded alert.' },
    smsMaxPerIpPerHour: { name: 'SMS_MAX_PER_IP_PER_HOUR', type: 'integer', default: '10', min: 1, max: 1000000, description: 'Codes sent per hour at the request of one IP address, counted apart from other auth requests; 429 RATE_LIMITED beyond.' },
    allowedCountries: { name: 'SMS_ALLOWED_COUNTRIES', type: 'string', description: 'Country calling codes that may receive codes, comma-separated (e.g. 1,44,49); unset: all. Another number gets 400 VALIDATION_ERROR and no SMS.' },
  },
  smsGateway: {
    allOrNone: {
      url: { name: 'SMS_GATEWAY_URL', type: 'url', schemes: ['http', 'https'], requiredInProduction: true, description: 'SMS gateway endpoint (POST); unset outside production: a development sender logs messages.' },
      apiKey: { name: 'SMS_GATEWAY_API_KEY', type: 'secret', requiredInProduction: true, description: 'Bearer key of the SMS gateway.' },
      sender: { name: 'SMS_GATEWAY_SENDER', type: 'string', requiredInProduction: true, description: 'Sender name or number of the SMS.' },
    },
  },
  streams: {
    maxPerUser: { name: 'STREAM_MAX_PER_USER', type: 'integer', default: '10', min: 1, max: 100000, description: 'Open notification streams (GET /api/sync/stream) per user, counted over all nodes with REDIS_URL (per node without); 429 beyond.' },
    maxConnections: { name: 'STREAM_MAX_CONNECTIONS', type: 'integer', default: '10000', min: 1, max: 1000000, description: 'Open notification streams per node; 503 TOO_MANY_STREAMS beyond.' },
  },
  retention: {
    receipts: { name: 'RECEIPT_RETENTION', type: 'duration', default: '30d', description: 'How long idempotency receipts of pushes are kept; a retry older than this is decided like a new push.' },
    tombstones: { name: 'TOMBSTONE_RETENTION', type: 'duration', default: '90d', description: 'How long tombstones (deleted records) are kept; a device whose cursor predates the purge gets cursorReset and a full snapshot.' },
    conflicts: { name: 'CONFLICT_RETENTION', type: 'duration', default: '180d', description: 'How long resolved conflict records are kept (unresolved ones stay until resolved).' },
    maintenanceInterval: { name: 'MAINTENANCE_INTERVAL', type: 'duration', default: '1h', description: 'How often the maintenance job removes what outlived its retention (also ended sessions and used or expired codes); one node at a time.' },
  },
  reminders: {
    grace: { name: 'REMINDER_GRACE', type: 'duration', default: '1h', description: 'Reminders that fell due while no node ran are sent at start when younger than this; older ones are skipped and counted (calsync_reminders_skipped_total).' },
    pollMs: { name: 'REMINDER_POLL_MS', type: 'integer', default: '1000', min: 50, max: 60000, description: 'How often the scheduling node looks for due reminders (a reminder is at most about this late).' },
    leaseMs: { name: 'REMINDER_LEASE_MS', type: 'integer', default: '3000', min: 500, max: 600000, description: 'How long the scheduling node\'s lease lasts unrenewed: another node takes over this long after it died (with the poll interval, the most a reminder is late across a fail-over).' },
  },
  notifyCoalesceMs: { name: 'NOTIFY_COALESCE_MS', type: 'integer', default: '1000', min: 0, max: 600000, description: 'Changes of a user within this many ms become one FCM message per device.' },
  fcm: {
    allOrNone: {
      projectId: { name: 'FCM_PROJECT_ID', type: 'string', description: 'Firebase project id; with FCM_CREDENTIALS, devices with an fcmToken get data-changed pushes (off when unset).' },
      credentials: { name: 'FCM_CREDENTIALS', type: 'secret', description: 'Service-account key of the Firebase project: the JSON itself or a path to the JSON file.' },
    },
  },
  fcmEndpoint: { name: 'FCM_ENDPOINT', type: 'url', default: 'https://fcm.googleapis.com', schemes: ['http', 'https'], description: 'Base URL of the FCM HTTP v1 API (a local stand-in in tests).' },
  fcmTokenUrl: { name: 'FCM_TOKEN_URL', type: 'url', schemes: ['http', 'https'], description: 'OAuth2 token endpoint for the service account; the key file\'s token_uri when unset.' },
} as const satisfies ConfigTree;
