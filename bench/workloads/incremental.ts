import type pg from 'pg';
import { type DeviceSession, pull, pullAll, push } from '../lib/client.js';
import { fillOtherUsers } from '../lib/fill.js';
import { newEvent } from '../lib/ids.js';
import { lanes, msSince, percentile } from '../lib/stats.js';

/** Figures of the incremental-sync workload. */
export interface IncrementalFigures {
  smallRows: number;
  largeRows: number;
  smallP50Ms: number;
  smallP99Ms: number;
  p50Ms: number;
  p99Ms: number;
  ratio: number;
  /** Empty incremental pages of one user at its head, `CONCURRENT_PULLS` requests in flight (its devices polling together). */
  concurrentPullsPerSecond: number;
  concurrentP50Ms: number;
}

/** Requests in flight for `concurrentPullsPerSecond`. */
const CONCURRENT_PULLS = 4;

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
 * `pulls` empty pages of `reader`'s user at its head, `CONCURRENT_PULLS` at a time: the pulls of
 * one user meet on its lock, so this shows how long a pull holds it.
 */
async function concurrentPulls(baseUrl: string, reader: DeviceSession, pulls: number): Promise<{ perSecond: number; p50Ms: number }> {
  const { cursor } = await pullAll(baseUrl, reader.token, undefined, 1000);
  const samples: number[] = [];
  const seconds = await lanes(pulls, CONCURRENT_PULLS, async () => {
    const t = performance.now();
    const page = await pull(baseUrl, reader.token, cursor, 500);
    samples.push(msSince(t));
    if (page.events.length !== 0 || page.hasMore) throw new Error('a pull at the head returned changes');
  });
  return { perSecond: pulls / seconds, p50Ms: percentile(samples, 50) };
}

/**
 * Pull latency of 10 new changes for one user when the tables hold `small` vs `large` rows of
 * other users. The ratio large/small of the p50s shows whether pull cost depends on other users'
 * data. Then the user's pulls at its head, several at once (`concurrentPulls`).
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
  const concurrent = await concurrentPulls(baseUrl, reader, sizes.rounds * 20);
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
    concurrentPullsPerSecond: concurrent.perSecond,
    concurrentP50Ms: concurrent.p50Ms,
  };
}
