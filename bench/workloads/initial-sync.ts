import type { DeviceSession } from '../lib/client.js';
import { startReader, type ReaderProcess } from '../lib/reader-process.js';
import type { ServerProcess } from '../lib/server.js';

/** Figures of the initial-sync workload: medians over `repetitions` timed runs of each side. */
export interface InitialSyncFigures {
  rows: number;
  /** Timed runs of each side (after each reader process's warm-up). */
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

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * Initial sync against its baseline, alternating. Each side reads in a process of its own, warmed
 * up by the same untimed reads (`startReader`): ours pulls everything as a second device, the
 * baseline selects it from PostgreSQL. Then `repetitions` pairs, ours first in even pairs and the
 * baseline first in odd ones, so neither side is always the warmer. Each run is short (a fraction
 * of a second), so one run of a side says little on a shared machine: the figures are medians. One
 * run's pairs spread from about 0.5 to 1.1, and a median of 7 pairs moved by a tenth between runs,
 * so there are 15 (a few seconds more). The server's RSS is sampled during our runs.
 */
export async function runInitialSync(baseUrl: string, device: DeviceSession, server: ServerProcess, databaseUrl: string, repetitions = 15): Promise<InitialSyncFigures> {
  const stopSampling = server.sampleRss();
  const ours = await startReader({ pull: { baseUrl, token: device.token } });
  const baseline = await startReader({ baseline: { databaseUrl, userId: device.userId } });
  const rows = ours.rows;
  if (baseline.rows !== rows) throw new Error(`initial sync returned ${rows} rows, the table holds ${baseline.rows}`);
  const rates: { ours: number[]; base: number[] } = { ours: [], base: [] };
  const run = async (reader: ReaderProcess, into: number[]) => {
    const read = await reader.read();
    if (read.rows !== rows) throw new Error(`initial sync: a run read ${read.rows} rows, the warm-up ${rows}`);
    into.push(read.rows / (read.ms / 1000));
  };
  for (let i = 0; i < repetitions; i++) {
    if (i % 2 === 0) {
      await run(ours, rates.ours);
      await run(baseline, rates.base);
    } else {
      await run(baseline, rates.base);
      await run(ours, rates.ours);
    }
  }
  await ours.stop();
  await baseline.stop();
  const peakRssMb = stopSampling();
  const rowsPerSecond = median(rates.ours);
  const baselineRowsPerSecond = median(rates.base);
  const pairRatios = rates.ours.map((r, i) => r / rates.base[i]!);
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
