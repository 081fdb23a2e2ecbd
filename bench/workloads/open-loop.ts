import { monitorEventLoopDelay, PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import type { SyncClient } from '@calsync/client';
import { countOver, histogramBetween, scrapeMetrics, serverLoopDelay } from '../lib/metrics.js';
import { machineShare, type MachineShare } from '../lib/server.js';
import { loopDelayOf, type LoopDelay } from '../lib/reminder-listener.js';
import { msSince, percentile } from '../lib/stats.js';
import { converged, syncRoundTrip } from './many-devices.js';

/** One offered rate of the open-loop workload. */
export interface OpenLoopStep {
  /** Fraction of the closed-loop maximum. */
  fraction: number;
  offeredPerSecond: number;
  completedPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /**
   * The event-loop delay during the step: of the load generator (its 100 SDK devices, which also
   * time the arrivals, so its lag is part of every latency) and of the server (its
   * `nodejs_eventloop_lag_*` over the step). A tail that the server's loop does not show came from
   * somewhere else.
   */
  loopDelay: { loadGenerator: LoopDelay; server: { p99Ms: number; maxMs: number } };
  /**
   * CPU seconds the machine spent during the step outside the measurement's own processes (the
   * server, every PostgreSQL process, this load generator), and CPU seconds the hypervisor stole.
   * A tail with a burst here came from the machine: on the benchmark machine, an Erlang VM that a
   * health check of the machine's RabbitMQ broker starts about once a minute (about 1 s of CPU)
   * and the VM's DAMON memory monitor (every 0.5 s) both stall every process for tens to hundreds
   * of ms (bench/PERFORMANCE.md).
   */
  machine: MachineShare;
  /**
   * The load generator's full garbage collections (mark-compact) during the step, and how many of
   * the step's slowest 1 % of arrivals were in flight when one of them ended. The 100 devices share
   * one process, so such a collection (and the incremental marking before it, on the same two
   * cores) holds up every device at once: a tail that these arrivals make up is the load
   * generator's, where each phone would collect only its own heap. The bench gives the load
   * generator's heap room so that it rarely collects in full during a run
   * (`LOAD_GENERATOR_HEAP_FLAGS`); these figures say when a step caught one anyway.
   */
  loadGeneratorGc: { majorCount: number; majorMaxMs: number; slowestInFlight: number; slowest: number };
  /**
   * The step's pushes and pulls as the server timed them (from receiving a request to sending its
   * answer): how many in all, and how many took over 25, 50 and 100 ms. An arrival is two or three
   * of them, so a tail that these counts do not show was spent outside the server's requests:
   * between the load generator and the server's loop.
   */
  serverRequests: { count: number; over25Ms: number; over50Ms: number; over100Ms: number };
}

/** Figures of the open-loop workload. */
export interface OpenLoopFigures {
  closedLoopMaxPerSecond: number;
  seconds: number;
  steps: OpenLoopStep[];
  /** p99 at 50 % of the closed-loop maximum. */
  p99MsAtHalf: number;
  /** The 50 % step's `serverRequests`: how much of that p99 the server's own requests can explain. */
  serverRequestsAtHalf: OpenLoopStep['serverRequests'] | null;
  /** The highest offered rate (round trips/s) whose p99 stayed under 100 ms. */
  maxRateUnder100Ms: number;
  /** maxRateUnder100Ms × the 60 s sync interval: devices one box serves at that latency. */
  devicesPerBox: number;
  converged: boolean;
}

/** The routes of a round trip's requests, as fastify-metrics labels them. */
const SYNC_ROUTES = ['/api/sync/push', '/api/sync/changes'];

/** Sync interval of a device that syncs once a minute: the devices-per-box multiplier. */
const SYNC_INTERVAL_SECONDS = 60;

/**
 * Round trips (the many-devices round trip: edit 1-5 events, push, pull) arrive at a fixed offered
 * rate, one every 1/rate seconds, whatever the answers do; each takes an idle device of the fleet
 * (or waits for one). Latency counts from the scheduled arrival, so a slow server cannot slow the
 * arrivals down and hide its own queue (no coordinated omission).
 */
async function offer(devices: readonly SyncClient[], rate: number, seconds: number): Promise<{ spans: Array<[number, number]>; errors: number; seconds: number }> {
  const idle = [...devices];
  const waiting: Array<(d: SyncClient) => void> = [];
  const take = (): Promise<SyncClient> => (idle.length > 0 ? Promise.resolve(idle.pop()!) : new Promise((r) => waiting.push(r)));
  const give = (d: SyncClient) => (waiting.length > 0 ? waiting.shift()!(d) : idle.push(d));
  /** Each completed arrival's scheduled start and end (performance.now()); its latency is the difference. */
  const spans: Array<[number, number]> = [];
  let errors = 0;
  const inFlight: Array<Promise<void>> = [];
  const arrival = async (scheduled: number) => {
    const device = await take();
    try {
      errors += await syncRoundTrip(device);
      spans.push([scheduled, performance.now()]);
    } catch {
      errors++;
    } finally {
      give(device);
    }
  };
  const t0 = performance.now();
  const total = Math.max(1, Math.round(rate * seconds));
  for (let k = 0; k < total; k++) {
    const scheduled = t0 + (k * 1000) / rate;
    const wait = scheduled - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(arrival(scheduled));
  }
  await Promise.all(inFlight);
  return { spans, errors, seconds: msSince(t0) / 1000 };
}

/** Watches the load generator's full collections; `stop` answers them as [start, end] (performance.now()). */
function watchMajorGcs(): { stop: () => Array<[number, number]> } {
  const seen: Array<[number, number]> = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (((e as PerformanceEntry & { detail?: { kind?: number } }).detail)?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) seen.push([e.startTime, e.startTime + e.duration]);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop: () => {
      observer.disconnect();
      return seen;
    },
  };
}

/** `OpenLoopStep.loadGeneratorGc` of a step's arrivals and the full collections seen during it. */
function gcShare(spans: ReadonlyArray<[number, number]>, majors: ReadonlyArray<[number, number]>): OpenLoopStep['loadGeneratorGc'] {
  const slowest = [...spans].sort(([a0, a1], [b0, b1]) => b1 - b0 - (a1 - a0)).slice(0, Math.max(1, Math.floor(spans.length / 100)));
  const inFlight = slowest.filter(([from, to]) => majors.some(([, end]) => end >= from && end <= to)).length;
  return { majorCount: majors.length, majorMaxMs: Math.max(0, ...majors.map(([a, b]) => b - a)), slowestInFlight: inFlight, slowest: slowest.length };
}

/**
 * Offers `fractions` of the closed-loop maximum, `seconds` each, to the fleet, then checks that
 * every device converged. "Devices per box" is the highest offered rate with p99 < 100 ms times a
 * 60 s sync interval.
 */
export async function runOpenLoop(
  baseUrl: string,
  devices: readonly SyncClient[],
  closedLoopMaxPerSecond: number,
  opts: { seconds: number; fractions: readonly number[]; serverCpuSeconds: () => number },
): Promise<OpenLoopFigures> {
  const steps: OpenLoopStep[] = [];
  for (const fraction of opts.fractions) {
    const offered = closedLoopMaxPerSecond * fraction;
    // This scrape restarts the server's event-loop figures (prom-client resets them per scrape).
    const scrapeBefore = await scrapeMetrics(baseUrl);
    const ownDelay = monitorEventLoopDelay({ resolution: 10 });
    ownDelay.enable();
    const endMachineShare = machineShare(opts.serverCpuSeconds);
    const gcs = watchMajorGcs();
    const m = await offer(devices, offered, opts.seconds);
    const loadGeneratorGc = gcShare(m.spans, gcs.stop());
    const latencies = m.spans.map(([from, to]) => to - from);
    const machine = endMachineShare();
    ownDelay.disable();
    const scrapeAfter = await scrapeMetrics(baseUrl);
    const loopDelay = { loadGenerator: loopDelayOf(ownDelay), server: serverLoopDelay(scrapeAfter) };
    // fastify-metrics' request histogram (bounds 25, 50, 100, 250 ms …), the push and pull routes' series.
    const requests = histogramBetween(scrapeBefore, scrapeAfter, 'http_request_duration_seconds', (labels) => SYNC_ROUTES.some((r) => labels.includes(`route="${r}"`)));
    const serverRequests = { count: requests.count, over25Ms: countOver(requests, 25), over50Ms: countOver(requests, 50), over100Ms: countOver(requests, 100) };
    const step = {
      fraction,
      offeredPerSecond: offered,
      completedPerSecond: latencies.length / m.seconds,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      errors: m.errors,
      loopDelay,
      machine,
      loadGeneratorGc,
      serverRequests,
    };
    console.log(
      `bench: open loop at ${Math.round(fraction * 100)} % (${offered.toFixed(1)}/s): p50 ${step.p50Ms.toFixed(1)} ms, p99 ${step.p99Ms.toFixed(1)} ms; ` +
        `event-loop delay p99/max: load generator ${loopDelay.loadGenerator.p99Ms.toFixed(0)}/${loopDelay.loadGenerator.maxMs.toFixed(0)} ms, server ${loopDelay.server.p99Ms.toFixed(0)}/${loopDelay.server.maxMs.toFixed(0)} ms; ` +
        `other processes ${machine.otherCpuSeconds.toFixed(2)} s CPU, stolen ${machine.stealSeconds.toFixed(2)} s; ` +
        `load generator full GCs ${loadGeneratorGc.majorCount} (longest ${loadGeneratorGc.majorMaxMs.toFixed(0)} ms), one ended during ${loadGeneratorGc.slowestInFlight} of the ${loadGeneratorGc.slowest} slowest arrivals; ` +
        `server-timed pushes and pulls over 25/50/100 ms: ${serverRequests.over25Ms}/${serverRequests.over50Ms}/${serverRequests.over100Ms} of ${serverRequests.count}`,
    );
    steps.push(step);
  }
  const under = steps.filter((s) => s.p99Ms < 100 && s.errors === 0).map((s) => s.offeredPerSecond);
  const maxRateUnder100Ms = under.length > 0 ? Math.max(...under) : 0;
  return {
    closedLoopMaxPerSecond,
    seconds: opts.seconds,
    steps,
    p99MsAtHalf: steps.find((s) => s.fraction === 0.5)?.p99Ms ?? Number.NaN,
    serverRequestsAtHalf: steps.find((s) => s.fraction === 0.5)?.serverRequests ?? null,
    maxRateUnder100Ms,
    devicesPerBox: Math.floor(maxRateUnder100Ms * SYNC_INTERVAL_SECONDS),
    converged: await converged(baseUrl, devices),
  };
}
