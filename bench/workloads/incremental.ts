import type pg from 'pg';
import { type DeviceSession, pull, pullAll, push } from '../lib/client.js';
import { fillOtherUsers } from '../lib/fill.js';
import { newEvent } from '../lib/ids.js';
import { msSince, percentile } from '../lib/stats.js';

/** Figures of the incremental-sync workload. */
export interface IncrementalFigures {
  smallRows: number;
  largeRows: number;
  smallP50Ms: number;
  smallP99Ms: number;
  p50Ms: number;
  p99Ms: number;
  ratio: number;
}

/** 200 rounds of: the writer pushes 10 new events, the reader pulls them; pull latency in ms. */
async function measure(baseUrl: string, writer: DeviceSession, reader: DeviceSession, calendarUid: string, rounds: number): Promise<number[]> {
  let { cursor } = await pullAll(baseUrl, reader.token, undefined, 1000);
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const events = Array.from({ length: 10 }, (_, i) => newEvent(calendarUid, r * 10 + i));
    await push(baseUrl, writer.token, { events });
    const t0 = performance.now();
    const page = await pull(baseUrl, reader.token, cursor, 1000);
    samples.push(msSince(t0));
    if (page.events.length !== 10) throw new Error(`incremental pull returned ${page.events.length} events, expected 10`);
    cursor = page.nextCursor;
  }
  return samples;
}

/**
 * Pull latency of 10 new changes for one user when the tables hold `small` vs `large` rows of
 * other users. The ratio large/small of the p50s shows whether pull cost depends on other users' data.
 */
export async function runIncremental(
  baseUrl: string,
  writer: DeviceSession,
  reader: DeviceSession,
  calendarUid: string,
  client: pg.Client,
  sizes: { small: number; large: number; rounds: number },
): Promise<IncrementalFigures> {
  const smallRows = await fillOtherUsers(client, sizes.small);
  const small = await measure(baseUrl, writer, reader, calendarUid, sizes.rounds);
  const largeRows = await fillOtherUsers(client, sizes.large);
  const large = await measure(baseUrl, writer, reader, calendarUid, sizes.rounds);
  const p50Ms = percentile(large, 50);
  const smallP50Ms = percentile(small, 50);
  return {
    smallRows,
    largeRows,
    smallP50Ms,
    smallP99Ms: percentile(small, 99),
    p50Ms,
    p99Ms: percentile(large, 99),
    ratio: p50Ms / smallP50Ms,
  };
}
