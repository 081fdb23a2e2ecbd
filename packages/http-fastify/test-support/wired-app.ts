import { CryptoRandom, ScryptPasswordHasher, SystemClock } from '@calsync/adapters-node';
import { PostgresLegacyStatsStore, PostgresSyncStore, postgresAuthStores, type Database } from '@calsync/adapters-postgres';
import { CursorCodec, SyncService, type ItemFailure } from '@calsync/domain';
import { CapturingSmsSender } from '@calsync/testkit';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { createAuthService } from '../src/auth/create-auth-service.js';
import { loadConfig } from '../src/config.js';

/** Options of `buildWiredApp`. */
export interface WiredAppOptions {
  readonly env?: Readonly<Record<string, string>>;
  /** Readiness probe; the database's ping when absent. */
  readonly readiness?: () => Promise<boolean>;
}

/** The app, the SMS codes it sent, and the storage failures items caused. */
export interface WiredApp {
  readonly app: FastifyInstance;
  readonly sms: CapturingSmsSender;
  readonly itemFailures: ItemFailure[];
  /** Signs a phone in (send-otp, verify-otp) and returns the Authorization header. */
  signIn(phone: string): Promise<{ authorization: string }>;
}

/**
 * The app wired as main.ts wires it (Postgres stores, real sign-in, the real sync engine) on an open
 * database, for tests through `app.inject`; cheap scrypt parameters and silent logs.
 */
export async function buildWiredApp(database: Database, opts: WiredAppOptions = {}): Promise<WiredApp> {
  const { config } = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...opts.env });
  const clock = new SystemClock();
  const itemFailures: ItemFailure[] = [];
  const sync = new SyncService({
    store: new PostgresSyncStore(database.db),
    clock,
    cursorCodec: new CursorCodec(config.syncCursorSecret),
    onItemFailure: (f) => itemFailures.push(f),
  });
  const sms = new CapturingSmsSender();
  const auth = createAuthService({
    config,
    ...postgresAuthStores(database.db),
    sync,
    passwordHasher: new ScryptPasswordHasher({ N: 1024, r: 8, p: 1 }),
    clock,
    random: new CryptoRandom(),
    smsSender: sms,
  });
  const app = await buildApp({
    config,
    logger: false,
    sync,
    stats: new PostgresLegacyStatsStore(database.db),
    auth,
    readiness: opts.readiness ?? (() => database.ping()),
  });
  await app.ready();
  return {
    app,
    sms,
    itemFailures,
    async signIn(phone) {
      const sent = await app.inject({ method: 'POST', url: '/api/auth/send-otp', payload: { phone } });
      if (sent.statusCode !== 200) throw new Error(`send-otp answered ${sent.statusCode}: ${sent.body}`);
      const verified = await app.inject({ method: 'POST', url: '/api/auth/verify-otp', payload: { phone, otp: sms.lastCode(phone) } });
      if (verified.statusCode !== 200) throw new Error(`verify-otp answered ${verified.statusCode}: ${verified.body}`);
      return { authorization: `Bearer ${verified.json().data.accessToken as string}` };
    },
  };
}
