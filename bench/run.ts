/**
 * `pnpm bench [--quick] [--pglite] [--memory] [--notifications] [--occurrences] [--caldav] [--peer] [--many-devices] [--initial-sync] [--small-push] [--tables]`: starts the real server process, drives it over HTTP and
 * compares against floors measured through `pg` on the same database in the same run. Prints a
 * table and writes bench/results/<date>.json. Not part of `pnpm test`.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startStandInSmsGateway } from '@calsync/testkit';
import { signIn, type DeviceSession } from './lib/client.js';
import { connect, recreateDatabase } from './lib/db.js';
import { collectGarbage, LOAD_GENERATOR_HEAP_FLAGS, ranWithHeapRoom } from './lib/load-generator-heap.js';
import { ServerProcess } from './lib/server.js';
import { round } from './lib/stats.js';
import { runConflicts } from './workloads/conflicts.js';
import { runIdleMemory } from './workloads/idle-memory.js';
import { runIncremental } from './workloads/incremental.js';
import { runInitialSync } from './workloads/initial-sync.js';
import { runManyDevices, signInFleet } from './workloads/many-devices.js';
import { runNotifications } from './workloads/notifications.js';
import { runOccurrences } from './workloads/occurrences.js';
import { runCaldav } from './workloads/caldav.js';
import { runPeer } from './workloads/peer.js';
import { runOpenLoop } from './workloads/open-loop.js';
import { DatabaseCpuMeter } from './lib/database-cpu.js';
import {
  alternateTables,
  fillTable,
  runSmallPushLevel,
  serverAndDatabaseCpu,
  smallPushFigures,
  smallPushTarget,
  type SmallPushRun,
  type TableAlternation,
} from './workloads/small-push.js';
import { runUpload, uploadEvents } from './workloads/upload.js';

const quick = process.argv.includes('--quick');
const usePglite = process.argv.includes('--pglite');
/** `--memory`: only the idle-memory workload (PGlite first start and restart against PostgreSQL). */
const memoryOnly = process.argv.includes('--memory');
/** `--profile`: the server writes a V8 CPU profile into bench/profiles/ when it stops. */
const profile = process.argv.includes('--profile');
/** `--notifications`: only the live-notification workload (two nodes on PostgreSQL). */
const notificationsOnly = process.argv.includes('--notifications');
/** `--occurrences`: only the occurrence workload (a calendar view's reads). */
const occurrencesOnly = process.argv.includes('--occurrences');
/** `--caldav`: only the CalDAV workload (calsync beside Radicale). */
const caldavOnly = process.argv.includes('--caldav');
/** `--many-devices`: only the 100-device workload (and the reminders that fall due during it), then the open loop on its fleet. */
const manyOnly = process.argv.includes('--many-devices');
/** `--peer`: only the peer workload (calsync beside PouchDB's server, express-pouchdb on LevelDB). */
const peerOnly = process.argv.includes('--peer');
/** `--initial-sync`: only the initial-sync workload (its 10,000 events pushed as the upload workload pushes them, untimed). */
const initialSyncOnly = process.argv.includes('--initial-sync');
/** `--small-push`: only the small-push workload at the small table (one and 1–5 items per push, 4 and 16 in flight). */
const smallPushOnly = process.argv.includes('--small-push');
/**
 * `--in-flight=1,4,16` (with `--small-push`): the concurrency levels of that run instead of 4 and 16.
 * Pushes of one user that queue together share a unit of work, so the CPU per push falls with them.
 */
const inFlightArg = process.argv.find((a) => a.startsWith('--in-flight='));
const smallPushInFlight = inFlightArg === undefined ? undefined : inFlightArg.slice('--in-flight='.length).split(',').map(Number);
if (smallPushInFlight && !smallPushOnly) throw new Error('--in-flight goes with --small-push');
if (smallPushInFlight?.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--in-flight takes positive integers separated by commas, not ${inFlightArg}`);
/** `--tables`: only the small-push workload's two tables in turn (`smallPush.ratioLargeTable`): both filled, each served by a fresh server. */
const tablesOnly = process.argv.includes('--tables');
const caldavEvents = quick ? 300 : 2000;
/** Events of the peer workload: one per request (two runs), in batches of 1,000, in conflicting write pairs. */
const peerSizes = quick ? { small: 1000, large: 2000, batch: 2000, batchRounds: 1, conflicts: 2000 } : { small: 2000, large: 10_000, batch: 10_000, batchRounds: 3, conflicts: 10_000 };
/** Rounds of the two tables in turn (`alternateTables`). */
const tableRounds = 6;
const sizes = quick
  ? { upload: 2000, small: 10_000, large: 100_000, rounds: 50, users: 10, manySeconds: 5, conflictSeconds: 4, pushes: 200, ownLarge: 10_000, openSeconds: 3, notifyPushes: 50, streams: 1000 }
  : { upload: 10_000, small: 10_000, large: 1_000_000, rounds: 200, users: 50, manySeconds: 30, conflictSeconds: 15, pushes: 1000, ownLarge: 100_000, openSeconds: 10, notifyPushes: 300, streams: 1000 };
/** Offered rates of the open loop, as fractions of the closed-loop maximum. */
const openFractions = quick ? [0.25, 0.5, 0.75] : [0.1, 0.25, 0.5, 0.75, 1];
const dbUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/calsync_bench';

/** The server's environment for a benchmark run on `databaseUrl` (limits off, logs quiet). */
function serverEnv(databaseUrl: string, gatewayUrl: string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    JWT_SECRET: 'bench-access-secret-0123456789abcdef',
    JWT_REFRESH_SECRET: 'bench-refresh-secret-0123456789abcdef',
    SYNC_CURSOR_SECRET: 'bench-cursor-secret-0123456789abcdef',
    SMS_GATEWAY_URL: gatewayUrl,
    SMS_GATEWAY_API_KEY: 'bench-key',
    SMS_GATEWAY_SENDER: 'calsync',
    RATE_LIMIT_MAX_REQUESTS: '10000000',
    AUTH_RATE_LIMIT_MAX_REQUESTS: '10000000',
    OTP_RESEND_SECONDS: '0',
    OTP_MAX_SENDS_PER_HOUR: '1000',
    SMS_MAX_PER_HOUR: '100000',
    SMS_MAX_PER_IP_PER_HOUR: '100000',
    // The notification workload opens its 1,000 streams with one user's token.
    STREAM_MAX_PER_USER: '5000',
  };
}

/**
 * The small-push workload on PGlite at the small table, in a second server process of its own, so
 * a PostgreSQL run reports the embedded default beside it.
 */
async function smallPushOnPglite(gateway: Awaited<ReturnType<typeof startStandInSmsGateway>>): Promise<SmallPushRun[]> {
  const server = new ServerProcess(serverEnv(`pglite://${mkdtempSync(join(tmpdir(), 'calsync-bench-'))}`, gateway.url));
  await server.start();
  try {
    const target = await smallPushTarget(server.baseUrl, gateway, null);
    return await runSmallPushLevel(target, gateway, { own: sizes.small / 2, others: sizes.small / 2, pushes: sizes.pushes, inFlight: [4] });
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  let databaseUrl = dbUrl;
  if (usePglite) databaseUrl = `pglite://${mkdtempSync(join(tmpdir(), 'calsync-bench-'))}`;
  else await recreateDatabase(dbUrl);
  // First, alone on the machine: the idle memory of fresh servers (PGlite against PostgreSQL).
  const idleMemory = notificationsOnly || occurrencesOnly || caldavOnly || peerOnly || manyOnly || initialSyncOnly || smallPushOnly || tablesOnly ? null : await runIdleMemory(usePglite ? null : dbUrl);
  if (memoryOnly) {
    report({ idleMemory });
    return;
  }
  const gateway = await startStandInSmsGateway();

  const server = new ServerProcess(serverEnv(databaseUrl, gateway.url), profile ? ['--cpu-prof', `--cpu-prof-dir=${fileURLToPath(new URL('./profiles/', import.meta.url))}`] : []);
  await server.start();
  const client = usePglite ? null : await connect(dbUrl);
  const databaseCpu = usePglite ? null : await DatabaseCpuMeter.start(dbUrl);
  const figures: Record<string, unknown> = {};
  if (idleMemory) figures.idleMemory = idleMemory;
  try {
    const phone = '+15550000001';
    const writer = await signIn(server.baseUrl, gateway, phone, 'bench-writer');
    const reader = await signIn(server.baseUrl, gateway, phone, 'bench-reader');
    console.log(`bench: server at ${server.baseUrl} on ${usePglite ? 'PGlite' : dbUrl}${quick ? ' (quick)' : ''}`);

    if (occurrencesOnly) {
      figures.occurrences = await runOccurrences(server.baseUrl, gateway, { requests: quick ? 120 : 600 });
    } else if (caldavOnly) {
      figures.caldav = await runCaldav(server.baseUrl, gateway, { events: caldavEvents, serverCpuSeconds: () => server.cpuSeconds() });
    } else if (peerOnly) {
      figures.peer = await runPeer(server.baseUrl, gateway, peerSizes, peerCpu());
    } else if (initialSyncOnly) {
      if (!client) throw new Error('--initial-sync measures against a baseline through pg: it needs PostgreSQL, not --pglite');
      await uploadEvents(server.baseUrl, writer, sizes.upload);
      figures.initialSync = await runInitialSync(server.baseUrl, reader, server, dbUrl);
    } else if (smallPushOnly) {
      const smallRuns = await runSmallPushLevel(await smallPushTargetHere(), gateway, { own: sizes.small / 2, others: sizes.small / 2, pushes: sizes.pushes, ...(smallPushInFlight ? { inFlight: smallPushInFlight } : {}) });
      figures.smallPush = smallPushFigures(usePglite ? [] : smallRuns, [], usePglite ? smallRuns : []);
    } else if (tablesOnly) {
      if (!databaseCpu) throw new Error('--tables fills its tables through pg: it needs PostgreSQL, not --pglite');
      figures.smallPush = smallPushFigures([], [], [], await tablesInTurn(databaseCpu));
    } else if (manyOnly) {
      const fleet = await signInFleet(server.baseUrl, gateway, sizes.users);
      const many = await runManyDevices(server.baseUrl, fleet, manyDevicesOptions());
      figures.manyDevices = many;
      figures.openLoop = await runOpenLoop(server.baseUrl, fleet, many.roundTripsPerSecond, { seconds: sizes.openSeconds, fractions: openFractions, serverCpuSeconds: () => server.cpuSeconds() });
    } else {
      if (!notificationsOnly) await runEverythingElse(writer, reader);
      // A second app node on the same PostgreSQL (PGlite is one process: the one node plays both).
      const node2 = usePglite ? server : new ServerProcess(serverEnv(databaseUrl, gateway.url));
      if (node2 !== server) await node2.start();
      try {
        figures.notifications = await runNotifications(server, node2, writer, reader, { pushes: sizes.notifyPushes, streams: sizes.streams });
      } finally {
        if (node2 !== server) await node2.stop();
      }
    }
  } finally {
    await databaseCpu?.stop();
    await client?.end();
    await server.stop();
    await gateway.close();
  }
  report(figures);

  /** The many-devices workload's length and CPU readers (PostgreSQL's backends only when it runs on PostgreSQL). */
  function manyDevicesOptions() {
    return { seconds: sizes.manySeconds, serverCpuSeconds: () => server.cpuSeconds(), databaseCpuSeconds: databaseCpu ? () => databaseCpu.read() : null };
  }

  /** The CPU the server and PostgreSQL's backends of its database have used so far; undefined on PGlite (no backends to read). */
  function serverAndDatabaseCpuHere() {
    return databaseCpu ? () => serverAndDatabaseCpu(() => server.cpuSeconds(), () => databaseCpu.read()) : undefined;
  }

  /** The peer workload's reader of our side's CPU: on PGlite the database runs inside the server process. */
  function peerCpu() {
    return serverAndDatabaseCpuHere() ?? (async () => ({ server: server.cpuSeconds(), database: 0 }));
  }

  /** The small-push workload's user on this server, with the CPU readers when it runs on PostgreSQL. */
  function smallPushTargetHere() {
    return smallPushTarget(server.baseUrl, gateway, client ? dbUrl : null, serverAndDatabaseCpuHere());
  }

  /**
   * Growth with data, the two tables in turn (`alternateTables`): the large table is this run's
   * database, brought to the large level's size; the small one a database of its own
   * (`<name>_small`), brought to the small level's. Each is served by a server process started for
   * this, so neither side is the process that ran the workloads before.
   */
  async function tablesInTurn(largeCpu: DatabaseCpuMeter): Promise<TableAlternation> {
    const smallUrl = new URL(dbUrl);
    smallUrl.pathname += '_small';
    await recreateDatabase(smallUrl.toString());
    const smallCpu = await DatabaseCpuMeter.start(smallUrl.toString());
    const smallServer = new ServerProcess(serverEnv(smallUrl.toString(), gateway.url));
    const largeServer = new ServerProcess(serverEnv(dbUrl, gateway.url));
    try {
      await smallServer.start();
      await largeServer.start();
      const small = await smallPushTarget(smallServer.baseUrl, gateway, smallUrl.toString(), () => serverAndDatabaseCpu(() => smallServer.cpuSeconds(), () => smallCpu.read()));
      const large = await smallPushTarget(largeServer.baseUrl, gateway, dbUrl, () => serverAndDatabaseCpu(() => largeServer.cpuSeconds(), () => largeCpu.read()));
      const smallRows = await fillTable(small, gateway, sizes.small / 2, sizes.small / 2);
      const largeRows = await fillTable(large, gateway, sizes.ownLarge, sizes.large);
      return await alternateTables({ ...small, tableRows: smallRows }, { ...large, tableRows: largeRows }, { pushes: sizes.pushes, rounds: tableRounds });
    } finally {
      await largeServer.stop();
      await smallServer.stop();
      await smallCpu.stop();
    }
  }

  /** The workloads before the notification one (all of them unless --notifications). */
  async function runEverythingElse(writer: DeviceSession, reader: DeviceSession): Promise<void> {
    const target = await smallPushTargetHere();
    const half = sizes.small / 2;
    const smallRuns = await runSmallPushLevel(target, gateway, { own: half, others: half, pushes: sizes.pushes });
    let largeRuns: SmallPushRun[] = [];
    let tables: TableAlternation | null = null;
    if (client) {
      const upload = await runUpload(server.baseUrl, writer, client, sizes.upload);
      figures.upload = upload;
      figures.initialSync = await runInitialSync(server.baseUrl, reader, server, dbUrl);
      figures.incremental = await runIncremental(server.baseUrl, writer, reader, upload.calendarUid, client, sizes);
      largeRuns = await runSmallPushLevel(target, gateway, { own: sizes.ownLarge, others: sizes.large, pushes: sizes.pushes });
      tables = await tablesInTurn(databaseCpu!);
    } else {
      console.log('bench: --pglite has no second connection to its database: baselines, floors and the large fills are skipped');
    }
    const pgliteRuns = usePglite ? smallRuns : await smallPushOnPglite(gateway);
    figures.smallPush = smallPushFigures(usePglite ? [] : smallRuns, largeRuns, pgliteRuns, tables);
    const fleet = await signInFleet(server.baseUrl, gateway, sizes.users);
    const many = await runManyDevices(server.baseUrl, fleet, manyDevicesOptions());
    figures.manyDevices = many;
    figures.openLoop = await runOpenLoop(server.baseUrl, fleet, many.roundTripsPerSecond, { seconds: sizes.openSeconds, fractions: openFractions, serverCpuSeconds: () => server.cpuSeconds() });
    collectGarbage();
    figures.conflicts = await runConflicts(server.baseUrl, gateway, { seconds: sizes.conflictSeconds });
    figures.occurrences = await runOccurrences(server.baseUrl, gateway, { requests: quick ? 120 : 600 });
    figures.caldav = await runCaldav(server.baseUrl, gateway, { events: caldavEvents, serverCpuSeconds: () => server.cpuSeconds() });
    if (client) figures.peer = await runPeer(server.baseUrl, gateway, peerSizes, peerCpu());
  }
}

function report(figures: Record<string, unknown>): void {
  const rows: Array<[string, string]> = [];
  for (const [workload, value] of Object.entries(figures)) {
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (typeof v === 'number') rows.push([`${workload}.${key}`, String(round(v))]);
      else if (v !== null && typeof v === 'object') {
        for (const [inner, w] of Object.entries(v)) if (typeof w === 'number') rows.push([`${workload}.${key}.${inner}`, String(round(w))]);
      }
      else if (typeof v === 'boolean') rows.push([`${workload}.${key}`, String(v)]);
    }
  }
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
  const out = {
    date: new Date().toISOString(),
    mode: { quick, pglite: usePglite, notificationsOnly, occurrencesOnly, caldavOnly, peerOnly, memoryOnly, manyOnly, initialSyncOnly, smallPushOnly, tablesOnly },
    machine: { node: process.version, cpus: cpus().length, loadGeneratorHeap: LOAD_GENERATOR_HEAP_FLAGS.filter((flag) => process.execArgv.includes(flag)) },
    ...figures,
  };
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${out.date.slice(0, 10)}${quick ? '-quick' : ''}${usePglite ? '-pglite' : ''}${notificationsOnly ? '-notifications' : ''}${occurrencesOnly ? '-occurrences' : ''}${caldavOnly ? '-caldav' : ''}${peerOnly ? '-peer' : ''}${manyOnly ? '-many-devices' : ''}${initialSyncOnly ? '-initial-sync' : ''}${smallPushOnly ? '-small-push' : ''}${tablesOnly ? '-tables' : ''}${memoryOnly ? '-memory' : ''}.json`);
  writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  console.log(`bench: wrote ${file}`);
}

if (!ranWithHeapRoom()) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
