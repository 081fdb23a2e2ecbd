import { openEventStream, type OpenedStream, type StandInSmsGateway } from '@calsync/testkit';
import type { SyncClient } from '@calsync/client';
import { pullAll } from '../lib/client.js';
import { signedInDevice } from '../lib/sdk-device.js';
import { newEvent, uid } from '../lib/ids.js';
import { histogramBetween, histogramDelta, scrapeMetrics, serverLoopDelay, type HistogramFigures } from '../lib/metrics.js';
import { loopDelayOf, readReminders, startReminderListener, type LoopDelay } from '../lib/reminder-listener.js';
import { msSince, percentile } from '../lib/stats.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** CPU seconds spread over `roundTrips` round trips, in ms each. */
const msPerRoundTrip = (cpuSeconds: number, roundTrips: number): number => (cpuSeconds * 1000) / Math.max(1, roundTrips);

/** Figures of the many-devices workload. */
export interface ManyDevicesFigures {
  users: number;
  devices: number;
  seconds: number;
  roundTrips: number;
  roundTripsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  converged: boolean;
  /** p50/p99 of the same round trip with one device alone (no queueing behind the others). */
  soloP50Ms: number;
  soloP99Ms: number;
  /** CPU a round trip of that solo loop, in ms: the server and PostgreSQL's backends (null on PGlite). */
  soloCpuMsPerRoundTrip: { server: number; database: number | null };
  /**
   * CPU a round trip of the load, in ms: the server process, PostgreSQL's backends (null on PGlite,
   * which is the server's), and this load generator (the 100 SDK devices, with the reminder
   * streams it reads). All three share the machine's cores: their sum bounds the rate.
   */
  cpuMsPerRoundTrip: { server: number; database: number | null; loadGenerator: number };
  /**
   * Pushes a unit of work committed over the load (calsync_sync_push_group_size): a user's pushes
   * that queue on its lock are planned and committed together, so a loaded server spends less a push.
   */
  pushesPerUnit: number;
  /**
   * Reminders that fell due during the load (one `remindAt` per user every few seconds), heard on a
   * stream of each user's other device read by a process of its own (as a device is): how many were
   * due and heard once, and their lateness (arrival on the stream minus the due time).
   */
  reminders: ReminderLateness & {
    /**
     * The same reminders heard on a second stream per user read inside the load generator, whose
     * event loop the 100 devices keep busy: its lateness includes that loop's delay (how this
     * workload measured before 2026-11-26 evening).
     */
    inLoadGenerator: ReminderLateness;
    /** The server's calsync_reminder_lateness_seconds over the load: due time to the delivery's commit (bucket bounds). */
    server: HistogramFigures;
    /** Event-loop delay over the load: the server, the load generator and the listener process. */
    loopDelay: { server: { p99Ms: number; maxMs: number }; loadGenerator: LoopDelay; listener: LoopDelay };
  };
}

/** How many reminders were due, how many were heard exactly once, and their lateness. */
interface ReminderLateness {
  due: number;
  heardOnce: number;
  latenessP50Ms: number;
  latenessP99Ms: number;
  latenessMaxMs: number;
}

/** Signs in `users` users with 2 devices each (the SDK), each bootstrapped by its first pull. */
export async function signInFleet(baseUrl: string, gateway: StandInSmsGateway, users: number, phonePrefix = '+1888'): Promise<SyncClient[]> {
  const devices: SyncClient[] = [];
  for (let u = 0; u < users; u++) {
    const phone = `${phonePrefix}${String(u).padStart(7, '0')}`;
    for (const d of ['a', 'b']) devices.push(await signedInDevice(baseUrl, gateway, phone, `many-${u}-${d}`));
  }
  return devices;
}

let counter = 0;

/**
 * One device sync round trip: edit 1-5 events (about 60 % of them existing ones), then one SDK
 * sync round (push, pull). Returns the items the device has parked since; a failed round throws.
 */
export async function syncRoundTrip(device: SyncClient): Promise<number> {
  const calendarUid = device.calendars.list()[0]!.uid;
  const n = 1 + Math.floor(Math.random() * 5);
  const known = device.events.list();
  for (let i = 0; i < n; i++) {
    if (known.length > 0 && Math.random() < 0.6) {
      await device.events.put({ uid: known[Math.floor(Math.random() * known.length)]!.uid, title: `edit ${++counter}` });
    } else {
      const { op: _op, baseVersion: _base, ...fields } = newEvent(calendarUid, ++counter);
      await device.events.put({ ...fields, uid: uid('md-') });
    }
  }
  const failedBefore = device.status.failed;
  await device.sync();
  return device.status.failed - failedBefore;
}

/**
 * After a load: every device syncs once more and must hold exactly the live events a fresh full pull
 * shows. Each difference is printed (device, event, local and server versions), so a run that did not
 * converge says how.
 */
export async function converged(baseUrl: string, devices: readonly SyncClient[]): Promise<boolean> {
  let ok = true;
  for (const [i, device] of devices.entries()) {
    await device.sync();
    const truth = await pullAll(baseUrl, device.auth.accessToken()!, undefined, 1000);
    const live = new Map<string, string>();
    for (const page of truth.pages) for (const e of page.events) if (!e.deleted) live.set(e.uid, e.version);
    const local = new Map(device.events.list().map((e) => [e.uid, e.version]));
    const differences: string[] = [];
    if (device.status.pending !== 0) differences.push(`${device.status.pending} pending`);
    for (const [uid, version] of local) if (live.get(uid) !== version) differences.push(`${uid} local v${version}, server ${live.has(uid) ? `v${live.get(uid)}` : 'none'}`);
    for (const [uid, version] of live) if (!local.has(uid)) differences.push(`${uid} missing here, server v${version}`);
    if (differences.length === 0) continue;
    ok = false;
    console.log(`bench: device ${i} did not converge (${JSON.stringify(device.status)}): ${differences.slice(0, 5).join('; ')}`);
  }
  return ok;
}

/**
 * `users` users with 2 devices each (the SDK) loop (edit 1-5 events, one sync round: push, pull)
 * for `seconds` over keep-alive connections. Errors are failed rounds and parked items. At the end every
 * device pulls once more and must hold exactly the live events a fresh full pull shows. The loop
 * is closed (no pause between round trips), so its latency is devices / throughput (Little's law);
 * a short solo run first gives the service time of one round trip.
 */
export async function runManyDevices(
  baseUrl: string,
  devices: readonly SyncClient[],
  opts: { seconds: number; serverCpuSeconds: () => number; databaseCpuSeconds: (() => Promise<number>) | null },
): Promise<ManyDevicesFigures> {
  let errors = 0;
  /** One device's loop until `deadline`; latencies of whole round trips. */
  const loop = async (device: SyncClient, deadline: number, latencies: number[]): Promise<void> => {
    while (performance.now() < deadline) {
      const start = performance.now();
      try {
        errors += await syncRoundTrip(device);
        latencies.push(msSince(start));
      } catch {
        errors++;
      }
    }
  };

  // The same loop with one device alone first: the service time without queueing behind others.
  const solo: number[] = [];
  const soloCpuBefore = { server: opts.serverCpuSeconds(), database: await opts.databaseCpuSeconds?.() };
  await loop(devices[0]!, performance.now() + Math.min(3000, (opts.seconds * 1000) / 5), solo);
  const soloCpuMsPerRoundTrip = {
    server: msPerRoundTrip(opts.serverCpuSeconds() - soloCpuBefore.server, solo.length),
    database: soloCpuBefore.database === undefined ? null : msPerRoundTrip((await opts.databaseCpuSeconds!()) - soloCpuBefore.database, solo.length),
  };
  for (const device of devices) await device.sync();

  const reminders = await armReminders(baseUrl, devices, opts.seconds);
  const latencies: number[] = [];
  // This scrape also restarts the server's event-loop delay figures (prom-client resets them per scrape).
  const metricsBefore = await scrapeMetrics(baseUrl);
  const ownDelay = monitorEventLoopDelay({ resolution: 10 });
  ownDelay.enable();
  const cpuBefore = { server: opts.serverCpuSeconds(), database: await opts.databaseCpuSeconds?.(), own: process.cpuUsage() };
  const deadline = performance.now() + opts.seconds * 1000;
  const t0 = performance.now();
  await Promise.all(devices.map((device) => loop(device, deadline, latencies)));
  const seconds = msSince(t0) / 1000;
  const own = process.cpuUsage(cpuBefore.own);
  const cpuMsPerRoundTrip = {
    server: msPerRoundTrip(opts.serverCpuSeconds() - cpuBefore.server, latencies.length),
    database: cpuBefore.database === undefined ? null : msPerRoundTrip((await opts.databaseCpuSeconds!()) - cpuBefore.database, latencies.length),
    loadGenerator: msPerRoundTrip((own.user + own.system) / 1e6, latencies.length),
  };
  const metricsAtEnd = await scrapeMetrics(baseUrl);
  ownDelay.disable();
  const heard = await reminders.collect();
  const metricsAfter = await scrapeMetrics(baseUrl);

  const isConverged = await converged(baseUrl, devices);
  const groups = histogramBetween(metricsBefore, metricsAtEnd, 'calsync_sync_push_group_size');
  return {
    users: devices.length / 2,
    devices: devices.length,
    seconds,
    roundTrips: latencies.length,
    roundTripsPerSecond: latencies.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    errors,
    converged: isConverged,
    soloP50Ms: percentile(solo, 50),
    soloP99Ms: percentile(solo, 99),
    soloCpuMsPerRoundTrip,
    cpuMsPerRoundTrip,
    pushesPerUnit: groups.sum / groups.count,
    reminders: {
      ...heard.apart,
      inLoadGenerator: heard.inLoadGenerator,
      server: histogramDelta(metricsBefore, metricsAfter, 'calsync_reminder_lateness_seconds', 5000),
      loopDelay: {
        server: serverLoopDelay(metricsAtEnd),
        loadGenerator: loopDelayOf(ownDelay),
        listener: heard.listenerDelay,
      },
    },
  };
}

/** What `armReminders` heard: on the listener process's streams, on the load generator's, and the listener's loop delay. */
interface HeardFigures {
  apart: ReminderLateness;
  inLoadGenerator: ReminderLateness;
  listenerDelay: LoopDelay;
}

/** Lateness figures of the reminders `expected` (uid → due time) from what was heard (uid → lateness of each hearing). */
function latenessOf(expected: ReadonlyMap<string, number>, heard: ReadonlyMap<string, readonly number[]>): ReminderLateness {
  const lateness = [...expected.keys()].flatMap((k) => heard.get(k) ?? []);
  return {
    due: expected.size,
    heardOnce: [...expected.keys()].filter((k) => heard.get(k)?.length === 1).length,
    latenessP50Ms: percentile(lateness, 50),
    latenessP99Ms: percentile(lateness, 99),
    latenessMaxMs: lateness.length === 0 ? 0 : Math.max(...lateness),
  };
}

/**
 * Before the load: each user's first device gives one event reminders with `remindAt` spread over
 * the load (from 2 s in to 2 s before its end). The other device's token opens two streams: one
 * read by the listener process, one read here. `collect` waits (at most 10 s past the last due
 * time) until each was heard on both, and counts; the server's figures are filled in by the caller.
 */
async function armReminders(baseUrl: string, devices: readonly SyncClient[], seconds: number): Promise<{ collect(): Promise<HeardFigures> }> {
  const perUser = Math.max(1, Math.floor((seconds - 4) / 3));
  const spacing = ((seconds - 4) * 1000) / perUser;
  const expected = new Map<string, number>();
  const heard = new Map<string, number[]>();
  const streams: OpenedStream[] = [];
  const reads: Promise<void>[] = [];
  let stop = false;
  const readers = devices.filter((_, i) => i % 2 === 1).map((d) => d.auth.accessToken()!);
  const listener = await startReminderListener(`${baseUrl}/api/sync/stream`, readers);
  for (const token of readers) {
    const stream = await openEventStream(`${baseUrl}/api/sync/stream`, { authorization: `Bearer ${token}` });
    streams.push(stream);
    reads.push(readReminders(stream, () => stop, (due, heardAt) => heard.set(due.reminderUid, [...(heard.get(due.reminderUid) ?? []), heardAt - Date.parse(due.dueAt)])));
  }
  // Due times from 2 s after the load starts (the writes below and their sync come first).
  const start = Date.now() + 3000;
  const users = devices.length / 2;
  for (let d = 0; d + 1 < devices.length; d += 2) {
    const writer = devices[d]!;
    const eventUid = uid('rem-ev-');
    const { op: _op, baseVersion: _base, ...fields } = newEvent(writer.calendars.list()[0]!.uid, ++counter);
    await writer.events.put({ ...fields, uid: eventUid });
    for (let i = 0; i < perUser; i++) {
      const at = start + (d / 2 / users) * spacing + i * spacing;
      const reminderUid = uid('rem-');
      expected.set(reminderUid, at);
      await writer.reminders.put({ uid: reminderUid, eventUid, remindAt: new Date(at).toISOString() });
    }
  }
  await Promise.all(devices.filter((_, i) => i % 2 === 0).map((d) => d.sync()));
  return {
    async collect() {
      const last = Math.max(...expected.values());
      while (Date.now() < last + 10_000 && [...expected.keys()].some((k) => !heard.has(k))) await new Promise((r) => setTimeout(r, 200));
      await new Promise((r) => setTimeout(r, 1000)); // a duplicate would arrive by now
      stop = true;
      for (const s of streams) s.close();
      await Promise.all(reads);
      const apart = await listener.collect();
      const heardApart = new Map<string, number[]>();
      for (const h of apart.heard) heardApart.set(h.reminderUid, [...(heardApart.get(h.reminderUid) ?? []), h.heardAt - Date.parse(h.dueAt)]);
      return { apart: latenessOf(expected, heardApart), inLoadGenerator: latenessOf(expected, heard), listenerDelay: apart.loopDelay };
    },
  };
}
