import type pg from 'pg';
import { type DeviceSession, pull, pullAll, push } from '../lib/client.js';
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

const OTHER_USERS = 1000;

/** Fills `events` with rows of other users until they hold `total` rows (set-based SQL). */
async function fillOtherUsers(client: pg.Client, total: number): Promise<number> {
  const countFill = async () => Number((await client.query("SELECT count(*)::int AS n FROM events WHERE uid LIKE 'ev-fill-%'")).rows[0].n);
  const have = await countFill();
  const users = Number((await client.query("SELECT count(*)::int AS n FROM users WHERE phone LIKE '+1999%'")).rows[0].n);
  if (users === 0) {
    await client.query(
      `INSERT INTO users (name, phone) SELECT 'other ' || g, '+1999' || lpad(g::text, 7, '0') FROM generate_series(1, $1) g`,
      [OTHER_USERS],
    );
    await client.query(
      `INSERT INTO calendars (user_id, uid, version, created_at, updated_at, name, is_default)
       SELECT id, 'cal-other', nextval('record_version_seq'), now(), now(), 'Other', false FROM users WHERE phone LIKE '+1999%'`,
    );
  }
  const missing = total - have;
  if (missing > 0) {
    await client.query(
      `INSERT INTO events (user_id, uid, version, created_at, updated_at, calendar_uid, title, start_time, end_time, all_day)
       SELECT u.id, 'ev-fill-' || g, nextval('record_version_seq'), now(), now(), 'cal-other', 'filler ' || g,
              now(), now() + interval '1 hour', false
       FROM generate_series($1::int, $2::int) g
       JOIN LATERAL (SELECT id FROM users WHERE phone = '+1999' || lpad((1 + g % $3)::text, 7, '0')) u ON true`,
      [have + 1, total, OTHER_USERS],
    );
  }
  await client.query('ANALYZE');
  return countFill();
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
