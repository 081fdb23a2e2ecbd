import { CryptoRandom, ScryptPasswordHasher, SystemClock } from '@calsync/adapters-node';
import { PostgresFeedStore, PostgresLegacyStatsStore, PostgresRenderStore, PostgresSyncStore, postgresAuthStores, type Database } from '@calsync/adapters-postgres';
import {
  AppPasswordService,
  CursorCodec,
  FeedService,
  SyncService,
  type AuthService,
  type Clock,
  type DeviceStore,
  type ItemFailure,
  type Random,
  type RenderStore,
  type SyncApi,
  type SyncStore,
  type TokenSigner,
  type UserStore,
} from '@calsync/domain';
import { HttpSmsSender } from '@calsync/adapters-sms';
import { CapturingSmsSender, CheapPasswordHasher, FixedClock, InMemoryFeedStore, InMemoryRenderStore, InMemorySyncStore, SeededRandom, inMemoryAuthStores } from '@calsync/testkit';
import type { FastifyInstance } from 'fastify';
import { buildApp, calsync, type BuildAppDeps } from '../src/app.js';
import { createAuthService } from '../src/auth/create-auth-service.js';
import { loadConfig } from '../src/config.js';
import type { AppConfig } from '../src/config-types.js';
import { FixedLegacyStats, RecordingSyncApi, StandInAuth } from './fakes.js';

/** A part of the app a test replaces: the engine by `RecordingSyncApi`, sign-in by `StandInAuth`. */
export type StandIn = 'engine' | 'sign-in';

/** How a test's app is wired: data, so every test builds the app the same way (`build`). */
export interface BuildOptions<Store extends SyncStore = SyncStore> {
  /** Variables on top of the test defaults (NODE_ENV=test, LOG_LEVEL=silent). */
  readonly env?: Readonly<Record<string, string>>;
  /** An open database: its stores (records, accounts, feeds, stats), as main.ts wires them. Testkit's in-memory stores when absent. */
  readonly database?: Database;
  /**
   * Parts the routes reach through a stand-in: 'engine' makes the routes call `RecordingSyncApi`
   * (sign-in still makes default calendars through the real engine); 'sign-in' makes them
   * authenticate with `StandInAuth` (Bearer `user-<id>`, see `asUser`). None when absent.
   */
  readonly standIns?: readonly StandIn[];
  /** The clock of sign-in, app passwords and feeds (main.ts's one clock); the system clock when absent. */
  readonly clock?: Clock;
  /** The engine's clock: a fixed instant in memory, the system clock on a database when absent. */
  readonly engineClock?: Clock;
  /** Random of sign-in, app passwords and feeds: `SeededRandom(seed)` in memory, crypto on a database when absent. */
  readonly random?: Random;
  /** The seed of the in-memory random (1 when absent). */
  readonly seed?: number;
  /** Sign-in's token signer; JWTs with the configured secrets when absent (as main.ts). */
  readonly tokens?: TokenSigner;
  /** Codes go to the configured gateway (SMS_GATEWAY_URL) as main.ts sends them; captured in `sms` of the result when absent. */
  readonly smsGateway?: boolean;
  /** Wraps the engine the routes call (e.g. to check invariants around every push). */
  readonly wrapSync?: (sync: SyncService, store: Store) => SyncApi;
  /** Notification streams (GET /api/sync/stream) on the store's change feed (in memory only); `heartbeatMs` shortens the heartbeat. */
  readonly streams?: boolean | { readonly heartbeatMs: number };
  /** App passwords, subscription feeds and CalDAV, on the same stores. */
  readonly interop?: boolean;
  /** Another node of the same service: this app runs on `nodeOf`'s stores, engine and sign-in (as two processes on one database). */
  readonly nodeOf?: TestApp<Store>;
  /** Mounts calsync as a plugin in a host app under `prefix` instead of building the standalone server. */
  readonly host?: { readonly app: FastifyInstance; readonly prefix: string };
  readonly logger?: BuildAppDeps['logger'];
  /** The readiness probe; the database's ping (or always ready in memory) when absent. */
  readonly readiness?: BuildAppDeps['readiness'];
  readonly redis?: BuildAppDeps['redis'];
  readonly databaseGauges?: BuildAppDeps['databaseGauges'];
  readonly webClientDir?: BuildAppDeps['webClientDir'];
}

/** The services behind an app, shared by the nodes of one test service (`nodeOf`). */
interface Services<Store extends SyncStore> {
  readonly store: Store;
  readonly users: UserStore;
  readonly devices: DeviceStore;
  readonly sync: SyncService;
  readonly recording: RecordingSyncApi;
  readonly auth: AuthService;
  readonly sms: CapturingSmsSender;
  readonly itemFailures: ItemFailure[];
  readonly interop: { readonly appPasswords: AppPasswordService; readonly feeds: FeedService; readonly renders: RenderStore };
}

/** What `build` made: the app (ready, not listening) and the parts a test looks into. */
export interface TestApp<Store extends SyncStore = SyncStore> extends Services<Store> {
  readonly app: FastifyInstance;
  readonly config: AppConfig;
  /** Signs a phone in through HTTP (send-otp, verify-otp) and returns its Authorization header. */
  signIn(phone: string, device?: { readonly uid: string; readonly platform?: string }): Promise<{ authorization: string }>;
}

/**
 * The one test build of the app (fastify's Testing guide): `buildApp` with the parts main.ts passes,
 * made from `options` — in-memory stores or a database's, real or stand-in engine and sign-in, the
 * clocks, random and token signer a test controls. Tests reach it through `app.inject` or `listen`.
 */
export async function build(options?: BuildOptions<InMemorySyncStore> & { readonly database?: undefined }): Promise<TestApp<InMemorySyncStore>>;
export async function build(options: BuildOptions<PostgresSyncStore> & { readonly database: Database }): Promise<TestApp<PostgresSyncStore>>;
export async function build(options: BuildOptions<InMemorySyncStore> | BuildOptions<PostgresSyncStore> = {}): Promise<TestApp> {
  const { config } = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...options.env });
  const services = (options.nodeOf as TestApp | undefined) ?? servicesFor(config, options);
  const standIns = new Set(options.standIns ?? []);
  const sync = standIns.has('engine') ? services.recording : services.sync;
  const deps: Omit<BuildAppDeps, 'logger'> = {
    config,
    sync: options.wrapSync ? options.wrapSync(services.sync, services.store as never) : sync,
    stats: options.database ? new PostgresLegacyStatsStore(options.database.db) : new FixedLegacyStats(),
    auth: standIns.has('sign-in') ? new StandInAuth() : services.auth,
    readiness: options.readiness ?? (options.database ? () => options.database!.ping() : async () => true),
    databaseGauges: options.databaseGauges,
    redis: options.redis,
    webClientDir: options.webClientDir,
    ...(options.interop ? { interop: services.interop } : {}),
    ...(options.streams ? streamsOn(services.store, options.streams) : {}),
  };
  let app: FastifyInstance;
  if (options.host) {
    app = options.host.app;
    await app.register(calsync, { prefix: options.host.prefix, ...deps });
  } else {
    app = await buildApp({ ...deps, logger: options.logger ?? false });
  }
  await app.ready();
  return {
    ...services,
    app,
    config,
    async signIn(phone, device) {
      const sent = await app.inject({ method: 'POST', url: '/api/auth/send-otp', payload: { phone } });
      if (sent.statusCode !== 200) throw new Error(`send-otp answered ${sent.statusCode}: ${sent.body}`);
      const verified = await app.inject({ method: 'POST', url: '/api/auth/verify-otp', payload: { phone, otp: services.sms.lastCode(phone), ...(device ? { device } : {}) } });
      if (verified.statusCode !== 200) throw new Error(`verify-otp answered ${verified.statusCode}: ${verified.body}`);
      return { authorization: `Bearer ${verified.json().data.accessToken as string}` };
    },
  };
}

/** The change feed of the in-memory store, for notification streams. */
function streamsOn(store: SyncStore, streams: true | { readonly heartbeatMs: number }): Pick<BuildAppDeps, 'changes' | 'streamHeartbeatMs'> {
  if (!(store instanceof InMemorySyncStore)) throw new Error('build: streams are wired on the in-memory store only');
  return { changes: store.changes, ...(streams === true ? {} : { streamHeartbeatMs: streams.heartbeatMs }) };
}

/** The HTTP SMS sender of the configured gateway. */
function gatewayOf(config: AppConfig): HttpSmsSender {
  if (!config.smsGateway) throw new Error('build: smsGateway needs SMS_GATEWAY_URL (and its key and sender) in env');
  return new HttpSmsSender(config.smsGateway);
}

/** Stores, engine, sign-in and interop as main.ts wires them, on a database or in memory. */
function servicesFor(config: AppConfig, options: Pick<BuildOptions, 'database' | 'clock' | 'engineClock' | 'random' | 'seed' | 'tokens' | 'smsGateway'>): Services<SyncStore> {
  const { database } = options;
  const authInMemory = database ? null : inMemoryAuthStores();
  // The in-memory sync store reads a user's notification settings where PostgreSQL does: the user's row.
  const memory = authInMemory === null ? null : { store: new InMemorySyncStore({ settings: async (id) => (await authInMemory.users.findById(id))?.notificationSettings ?? null }), ...authInMemory };
  const stores = database ? postgresAuthStores(database.db) : memory!;
  const store: SyncStore = database ? new PostgresSyncStore(database.db) : memory!.store;
  const clock = options.clock ?? new SystemClock();
  const random = options.random ?? (database ? new CryptoRandom() : new SeededRandom(options.seed ?? 1));
  const itemFailures: ItemFailure[] = [];
  const sync = new SyncService({
    store,
    clock: options.engineClock ?? (database ? new SystemClock() : new FixedClock()),
    cursorCodec: new CursorCodec(config.syncCursorSecret),
    onItemFailure: (failure) => itemFailures.push(failure),
  });
  const sms = new CapturingSmsSender();
  const auth = createAuthService({
    config,
    ...stores,
    sync,
    passwordHasher: database ? new ScryptPasswordHasher({ N: 1024, r: 8, p: 1 }) : new CheapPasswordHasher(),
    clock,
    random,
    smsSender: options.smsGateway ? gatewayOf(config) : sms,
    ...(options.tokens ? { tokens: options.tokens } : {}),
    ...(memory ? { sessionEnds: memory.store.changes } : {}),
  });
  const interop = {
    appPasswords: new AppPasswordService({ users: stores.users, devices: stores.devices, random, clock }),
    feeds: new FeedService({ feeds: database ? new PostgresFeedStore(database.db) : new InMemoryFeedStore(), sync, random, clock }),
    renders: database ? new PostgresRenderStore(database.db) : new InMemoryRenderStore(),
  };
  return { store, users: stores.users, devices: stores.devices, sync, recording: new RecordingSyncApi(), auth, sms, itemFailures, interop };
}
