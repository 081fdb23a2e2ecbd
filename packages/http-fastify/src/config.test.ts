import { describe, expect, it } from 'vitest';
import { expectTypeOf } from 'vitest';
import { CONFIG_TABLE, CONFIG_VARS, ConfigError, loadConfig, loadConfigSection, parseDurationSeconds } from './config.js';
import type { AppConfig } from './config-types.js';

const prodSecrets = {
  NODE_ENV: 'production',
  JWT_SECRET: 'a'.repeat(40),
  JWT_REFRESH_SECRET: 'b'.repeat(40),
  SYNC_CURSOR_SECRET: 'c'.repeat(40),
  SMS_GATEWAY_URL: 'https://sms.example.test/send',
  SMS_GATEWAY_API_KEY: 'key',
  SMS_GATEWAY_SENDER: 'calsync',
};

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
  throw new Error('expected loadConfig to throw');
}

function errorOf(env: Record<string, string>): string {
  const problems = problemsOf(env);
  expect(problems).toHaveLength(1);
  return problems[0] as string;
}

describe('config table', () => {
  it('lists every configuration name once, each with a description', () => {
    const names = CONFIG_VARS.map((v) => v.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of ['PORT', 'HOST', 'DATABASE_URL', 'DATABASE_POOL_MAX', 'JWT_SECRET', 'JWT_REFRESH_SECRET', 'JWT_ACCESS_EXPIRES_IN', 'JWT_REFRESH_EXPIRES_IN', 'SYNC_CURSOR_SECRET', 'SMS_GATEWAY_URL', 'SMS_GATEWAY_API_KEY', 'SMS_GATEWAY_SENDER', 'OTP_TTL_SECONDS', 'OTP_MAX_ATTEMPTS', 'OTP_RESEND_SECONDS', 'OTP_MAX_SENDS_PER_HOUR', 'CORS_ORIGIN', 'RATE_LIMIT_WINDOW_MS', 'RATE_LIMIT_MAX_REQUESTS', 'AUTH_RATE_LIMIT_MAX_REQUESTS', 'BODY_LIMIT_BYTES', 'REDIS_URL', 'LOG_LEVEL', 'NODE_ENV']) {
      expect(names).toContain(name);
    }
    for (const v of CONFIG_VARS) expect(v.description.length).toBeGreaterThan(10);
  });

  it('derives the configuration type from the table', () => {
    expectTypeOf<AppConfig['port']>().toEqualTypeOf<number>();
    expectTypeOf<AppConfig['nodeEnv']>().toEqualTypeOf<'development' | 'production' | 'test'>();
    expectTypeOf<AppConfig['redisUrl']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<AppConfig['jwt']['accessSecret']>().toEqualTypeOf<string>();
    expectTypeOf<AppConfig['otp']['hmacKey']>().toEqualTypeOf<string>();
    expectTypeOf<AppConfig['smsGateway']>().toEqualTypeOf<{ readonly url: string; readonly apiKey: string; readonly sender: string } | null>();
    // Every variable of the table has a value of its declared kind at run time.
    const { config } = loadConfig({});
    expect(config.sessionCacheSeconds).toBe(2);
    expect(typeof config.otp.hmacKey).toBe('string');
    expect(CONFIG_TABLE.smsGateway.allOrNone.url.name).toBe('SMS_GATEWAY_URL');
  });
});

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const { config, warnings } = loadConfig({});
    expect(config).toMatchObject({
      nodeEnv: 'development',
      port: 3000,
      host: '0.0.0.0',
      databaseUrl: 'pglite://./.data/pglite',
      databasePoolMax: 10,
      databaseStartupTimeoutMs: 60000,
      logLevel: 'info',
      bodyLimitBytes: 1048576,
      redisUrl: undefined,
      shutdownTimeoutMs: 10000,
      rateLimit: { windowMs: 900000, maxRequests: 600, authMaxRequests: 100 },
      jwt: { accessTtlSeconds: 900, refreshTtlSeconds: 90 * 86400 },
      otp: { ttlSeconds: 300, maxAttempts: 5, resendSeconds: 60, maxSendsPerHour: 5, smsMaxPerHour: 1000, smsMaxPerIpPerHour: 10 },
      smsGateway: null,
    });
    expect(warnings.join('\n')).toMatch(/JWT_SECRET.*random/);
    expect(warnings.join('\n')).toMatch(/SMS_GATEWAY_URL/);
  });

  it('gives development random per-process secrets that differ from each other', () => {
    const a = loadConfig({}).config;
    const b = loadConfig({}).config;
    expect(a.jwt.accessSecret).not.toBe(a.jwt.refreshSecret);
    expect(a.jwt.accessSecret).not.toBe(b.jwt.accessSecret);
    expect(a.syncCursorSecret.length).toBeGreaterThanOrEqual(32);
  });

  it('parses durations, CORS origins and a full production setup', () => {
    const { config, warnings } = loadConfig({ ...prodSecrets, JWT_ACCESS_EXPIRES_IN: '3600', JWT_REFRESH_EXPIRES_IN: '12h', CORS_ORIGIN: 'https://a.example, https://b.example' });
    expect(config.nodeEnv).toBe('production');
    expect(config.jwt.accessTtlSeconds).toBe(3600);
    expect(config.jwt.refreshTtlSeconds).toBe(43200);
    expect(config.corsOrigin).toEqual(['https://a.example', 'https://b.example']);
    expect(config.smsGateway).toEqual({ url: 'https://sms.example.test/send', apiKey: 'key', sender: 'calsync' });
    expect(config.otp.hmacKey).not.toBe(config.jwt.accessSecret);
    expect(warnings).toEqual([]);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_POOL_MAX: '0' }, 'DATABASE_POOL_MAX'],
    [{ JWT_ACCESS_EXPIRES_IN: '15 minutes' }, 'JWT_ACCESS_EXPIRES_IN'],
    [{ JWT_REFRESH_EXPIRES_IN: '0' }, 'JWT_REFRESH_EXPIRES_IN'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV'],
    [{ REDIS_URL: 'http://redis' }, 'REDIS_URL'],
    [{ CORS_ORIGIN: 'https://a.example/path' }, 'CORS_ORIGIN'],
    [{ SESSION_CACHE_SECONDS: '-1' }, 'SESSION_CACHE_SECONDS'],
    [{ SMS_GATEWAY_URL: 'https://sms.example.test', SMS_GATEWAY_SENDER: 'x' }, 'SMS_GATEWAY_API_KEY'],
  ])('a wrong value throws one line naming the variable (%o)', (env, name) => {
    const message = errorOf(env as Record<string, string>);
    expect(message).toContain(name);
    expect(message).not.toContain('\n');
  });

  it.each(['JWT_SECRET', 'JWT_REFRESH_SECRET', 'SYNC_CURSOR_SECRET', 'SMS_GATEWAY_URL', 'SMS_GATEWAY_API_KEY', 'SMS_GATEWAY_SENDER'])(
    'production without %s refuses to start',
    (name) => {
      const env: Record<string, string> = { ...prodSecrets };
      delete env[name];
      expect(errorOf(env)).toContain(name);
    },
  );

  it('production refuses short or identical token secrets and never prints them', () => {
    const short = errorOf({ ...prodSecrets, JWT_SECRET: 'tooshort' });
    expect(short).toContain('JWT_SECRET');
    expect(short).not.toContain('tooshort');
    expect(errorOf({ ...prodSecrets, JWT_REFRESH_SECRET: prodSecrets.JWT_SECRET })).toContain('JWT_REFRESH_SECRET');
  });
});

describe('all problems at once', () => {
  it('a production start without any secret names every missing variable, one line each', () => {
    const problems = problemsOf({ NODE_ENV: 'production' });
    const required = CONFIG_VARS.filter((v) => v.requiredInProduction).map((v) => v.name);
    expect(required).toHaveLength(6);
    expect(problems).toHaveLength(required.length);
    for (const name of required) expect(problems.filter((p) => p.includes(` ${name} `))).toHaveLength(1);
  });

  it('bad values, short secrets and a half-set gateway are reported together', () => {
    const problems = problemsOf({ NODE_ENV: 'production', PORT: 'x', LOG_LEVEL: 'loud', JWT_SECRET: 'short', JWT_REFRESH_SECRET: 'short', SMS_GATEWAY_URL: 'ftp://sms' });
    const names = problems.map((p) => /^Invalid configuration: (\S+)/.exec(p)?.[1]);
    expect(names.sort()).toEqual(['JWT_REFRESH_SECRET', 'JWT_SECRET', 'LOG_LEVEL', 'PORT', 'SMS_GATEWAY_API_KEY', 'SMS_GATEWAY_SENDER', 'SMS_GATEWAY_URL', 'SYNC_CURSOR_SECRET']);
    for (const p of problems) expect(p).not.toContain('short');
  });

  it('a section (as `migrate` reads it) reports its own variables only', () => {
    expect(loadConfigSection({ databaseUrl: CONFIG_TABLE.databaseUrl }, { NODE_ENV: 'production' })).toEqual({ databaseUrl: 'pglite://./.data/pglite' });
    expect(() => loadConfigSection({ databaseUrl: CONFIG_TABLE.databaseUrl }, { DATABASE_URL: 'mysql://db/x' })).toThrow(/DATABASE_URL must be a URL starting with postgres:\/\//);
  });
});

describe('parseDurationSeconds', () => {
  it('reads seconds and s/m/h/d suffixes and refuses the rest', () => {
    expect(parseDurationSeconds('15m')).toBe(900);
    expect(parseDurationSeconds('90d')).toBe(7776000);
    expect(parseDurationSeconds('3600')).toBe(3600);
    expect(parseDurationSeconds('30s')).toBe(30);
    expect(parseDurationSeconds('2h')).toBe(7200);
    for (const bad of ['', 'm', '-5', '1.5h', '10w', '0m']) expect(parseDurationSeconds(bad)).toBeNull();
  });
});
