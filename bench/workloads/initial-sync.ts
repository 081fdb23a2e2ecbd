import { startBaselineReader } from '../lib/baseline-reader.js';
import { type DeviceSession, pull } from '../lib/client.js';
import type { ServerProcess } from '../lib/server.js';
import { msSince } from '../lib/stats.js';

/** Figures of the initial-sync workload: medians over `repetitions` timed runs of each side. */
export interface InitialSyncFigures {
  rows: number;
  /** Timed runs of each side (after one untimed run of ours, and the baseline process's warm-up). */
  repetitions: number;
  rowsPerSecond: number;
  baselineRowsPerSecond: number;
  /** Median of ours over median of the baseline. */
  ratio: number;
  /** The lowest and highest ratio of one run of ours to the baseline run beside it. */
  ratioLow: number;
  ratioHigh: number;
  peakRssMb: number;
}

/** A second device pulls everything with limit 1000 from no cursor; answers the rows it got. */
async function pullEverything(baseUrl: string, device: DeviceSession): Promise<number> {
  let rows = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await pull(baseUrl, device.token, cursor, 1000);
    rows += page.calendars.length + page.events.length + page.tasks.length + page.reminders.length;
    cursor = page.nextCursor;
    if (!page.hasMore) return rows;
  }
}

/** Rows per second of one run of `read`, checking it read `expected` rows. */
async function timed(read: () => Promise<number>, expected: number | null): Promise<{ rows: number; perSecond: number }> {
  const t0 = performance.now();
  const rows = await read();
  const seconds = msSince(t0) / 1000;
  if (expected !== null && rows !== expected) throw new Error(`initial sync: a run read ${rows} rows, another ${expected}`);
  return { rows, perSecond: rows / seconds };
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * Initial sync against its baseline, alternating: one untimed run of ours first (the baseline
 * process has warmed up on its own: `startBaselineReader`), then `repetitions` pairs, ours first in
 * even pairs and the baseline first in odd ones, so neither side is always the warmer. Each run is
 * short (a fraction of a second), so one run of a side says little on a shared machine: the
 * figures are medians. One run's pairs spread from about 0.5 to 1.1, and a median of 7 pairs moved
 * by a tenth between runs, so there are 15 (a few seconds more). The server's RSS is sampled during
 * our runs.
 */
export async function runInitialSync(baseUrl: string, device: DeviceSession, server: ServerProcess, databaseUrl: string, repetitions = 15): Promise<InitialSyncFigures> {
  const stopSampling = server.sampleRss();
  const rows = await pullEverything(baseUrl, device);
  const baseline = await startBaselineReader(databaseUrl, device.userId);
  if (baseline.rows !== rows) throw new Error(`initial sync returned ${rows} rows, the table holds ${baseline.rows}`);
  const ours: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < repetitions; i++) {
    const runOurs = async () => ours.push((await timed(() => pullEverything(baseUrl, device), rows)).perSecond);
    const runBase = async () => {
      const read = await baseline.read();
      if (read.rows !== rows) throw new Error(`initial sync: the baseline read ${read.rows} rows, ours ${rows}`);
      base.push(read.rows / (read.ms / 1000));
    };
    if (i % 2 === 0) {
      await runOurs();
      await runBase();
    } else {
      await runBase();
      await runOurs();
    }
  }
  await baseline.stop();
  const peakRssMb = stopSampling();
  const rowsPerSecond = median(ours);
  const baselineRowsPerSecond = median(base);
  const pairRatios = ours.map((r, i) => r / base[i]!);
  return {
    rows,
    repetitions,
    rowsPerSecond,
    baselineRowsPerSecond,
    ratio: rowsPerSecond / baselineRowsPerSecond,
    ratioLow: Math.min(...pairRatios),
    ratioHigh: Math.max(...pairRatios),
    peakRssMb,
  };
}
