import { createHmac, randomBytes } from 'node:crypto';
import type { AppConfig } from './config-types.js';
import { CONFIG_TABLE, type ConfigVar } from './config-table.js';

export { CONFIG_TABLE, type ConfigVar } from './config-table.js';

/** A configuration problem; `message` is one line naming the variable, safe to print (no secret values). */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** The configuration plus warnings to log once a logger exists (e.g. development secrets generated). */
export interface LoadedConfig {
  readonly config: AppConfig;
  readonly warnings: readonly string[];
}

/** Parses `15m`, `90d`, `12h`, `30s` or plain seconds (`3600`) into seconds; null when malformed. */
export function parseDurationSeconds(text: string): number | null {
  const m = /^(\d{1,9})([smhd]?)$/.exec(text.trim());
  if (!m) return null;
  const n = Number(m[1]);
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] ?? ''] ?? 1;
  const seconds = n * unit;
  return seconds > 0 ? seconds : null;
}

type Parsed = string | number | boolean | string[] | undefined;

function fail(v: ConfigVar, why: string): never {
  throw new ConfigError(`Invalid configuration: ${v.name} ${why}`);
}

function parseOne(v: ConfigVar, raw: string): Parsed {
  switch (v.type) {
    case 'integer': {
      if (!/^-?\d+$/.test(raw)) fail(v, `must be an integer (got "${raw.slice(0, 40)}")`);
      const n = Number(raw);
      if ((v.min !== undefined && n < v.min) || (v.max !== undefined && n > v.max)) {
        fail(v, `must be between ${v.min} and ${v.max} (got ${raw})`);
      }
      return n;
    }
    case 'duration': {
      const s = parseDurationSeconds(raw);
      if (s === null) fail(v, `must be a duration such as 15m, 90d or 3600 (got "${raw.slice(0, 40)}")`);
      return s;
    }
    case 'enum':
      if (!v.values?.includes(raw)) fail(v, `must be one of ${v.values?.join(', ')} (got "${raw.slice(0, 40)}")`);
      return raw;
    case 'url': {
      const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1]?.toLowerCase();
      if (!scheme || !v.schemes?.includes(scheme)) fail(v, `must be a URL starting with ${v.schemes?.map((s) => `${s}://`).join(' or ')}`);
      if (scheme !== 'pglite') {
        try {
          new URL(raw);
        } catch {
          fail(v, 'is not a valid URL');
        }
      }
      return raw;
    }
    case 'origins': {
      if (raw === 'true') return true;
      if (raw === 'false') return false;
      if (raw === '*') return '*';
      const list = raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
      for (const origin of list) {
        if (!/^https?:\/\/[^/\s]+$/.test(origin)) fail(v, `must be *, true, false or http(s) origins without a path (got "${origin.slice(0, 60)}")`);
      }
      return list.length === 1 ? list[0] : list;
    }
    case 'secret':
    case 'string':
      return raw;
  }
}

/**
 * Reads and validates the configuration from `env` (main passes `process.env`; nothing else reads
 * it). Throws ConfigError with one line naming the first bad variable. In production, missing
 * secrets or SMS gateway refuse start-up; elsewhere secrets get random per-process values (tokens
 * and cursors then die with the process) and a warning.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): LoadedConfig {
  const values = new Map<string, Parsed>();
  for (const v of CONFIG_TABLE) {
    const raw = env[v.name]?.trim();
    const text = raw === undefined || raw === '' ? v.default : raw;
    values.set(v.name, text === undefined ? undefined : parseOne(v, text));
  }
  const nodeEnv = values.get('NODE_ENV') as string;
  const isProduction = nodeEnv === 'production';
  const warnings: string[] = [];
  const str = (name: string): string | undefined => values.get(name) as string | undefined;
  const num = (name: string): number => values.get(name) as number;
  const byName = (name: string): ConfigVar => CONFIG_TABLE.find((v) => v.name === name) as ConfigVar;

  if (isProduction) {
    for (const v of CONFIG_TABLE) {
      if (v.requiredInProduction && values.get(v.name) === undefined) fail(v, 'is required when NODE_ENV=production');
    }
    for (const name of ['JWT_SECRET', 'JWT_REFRESH_SECRET', 'SYNC_CURSOR_SECRET']) {
      if ((str(name) ?? '').length < 32) fail(byName(name), 'must be at least 32 characters when NODE_ENV=production');
    }
    if (str('JWT_SECRET') === str('JWT_REFRESH_SECRET')) fail(byName('JWT_REFRESH_SECRET'), 'must differ from JWT_SECRET');
  }

  const secret = (name: string): string => {
    const given = str(name);
    if (given !== undefined) return given;
    warnings.push(`${name} is not set: using a random value for this process only (tokens and cursors stop working when it exits); set it to keep them across restarts`);
    return randomBytes(32).toString('base64url');
  };
  const accessSecret = secret('JWT_SECRET');
  const refreshSecret = secret('JWT_REFRESH_SECRET');
  const syncCursorSecret = secret('SYNC_CURSOR_SECRET');

  const gatewayNames = ['SMS_GATEWAY_URL', 'SMS_GATEWAY_API_KEY', 'SMS_GATEWAY_SENDER'];
  const gatewaySet = gatewayNames.filter((n) => str(n) !== undefined);
  if (gatewaySet.length > 0 && gatewaySet.length < gatewayNames.length) {
    const missing = gatewayNames.find((n) => str(n) === undefined) as string;
    fail(byName(missing), `is required when ${gatewaySet.join(', ')} ${gatewaySet.length === 1 ? 'is' : 'are'} set`);
  }
  const smsGateway =
    gatewaySet.length === gatewayNames.length
      ? { url: str('SMS_GATEWAY_URL') as string, apiKey: str('SMS_GATEWAY_API_KEY') as string, sender: str('SMS_GATEWAY_SENDER') as string }
      : null;
  if (smsGateway === null) warnings.push('SMS_GATEWAY_URL is not set: one-time codes are written to the log instead of being sent');

  const otpSecret = str('OTP_SECRET') ?? createHmac('sha256', accessSecret).update('calsync otp codes').digest('base64url');

  const config: AppConfig = {
    nodeEnv,
    isProduction,
    port: num('PORT'),
    host: str('HOST') as string,
    databaseUrl: str('DATABASE_URL') as string,
    databasePoolMax: num('DATABASE_POOL_MAX'),
    logLevel: str('LOG_LEVEL') as string,
    corsOrigin: values.get('CORS_ORIGIN') as string | string[] | boolean,
    bodyLimitBytes: num('BODY_LIMIT_BYTES'),
    redisUrl: str('REDIS_URL') ?? null,
    rateLimit: {
      windowMs: num('RATE_LIMIT_WINDOW_MS'),
      maxRequests: num('RATE_LIMIT_MAX_REQUESTS'),
      authMaxRequests: num('AUTH_RATE_LIMIT_MAX_REQUESTS'),
    },
    jwt: {
      accessSecret,
      refreshSecret,
      accessTtlSeconds: num('JWT_ACCESS_EXPIRES_IN'),
      refreshTtlSeconds: num('JWT_REFRESH_EXPIRES_IN'),
      issuer: str('JWT_ISSUER') as string,
      audience: str('JWT_AUDIENCE') as string,
    },
    syncCursorSecret,
    otp: {
      ttlSeconds: num('OTP_TTL_SECONDS'),
      maxAttempts: num('OTP_MAX_ATTEMPTS'),
      resendSeconds: num('OTP_RESEND_SECONDS'),
      maxSendsPerHour: num('OTP_MAX_SENDS_PER_HOUR'),
      hmacKey: otpSecret,
    },
    smsGateway,
  };
  return { config, warnings };
}
