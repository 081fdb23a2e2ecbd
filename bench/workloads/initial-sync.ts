import type pg from 'pg';
import { type DeviceSession, pull } from '../lib/client.js';
import type { ServerProcess } from '../lib/server.js';
import { msSince } from '../lib/stats.js';

/** Figures of the initial-sync workload. */
export interface InitialSyncFigures {
  rows: number;
  rowsPerSecond: number;
  baselineRowsPerSecond: number;
  ratio: number;
  peakRssMb: number;
}

/**
 * A second device pulls everything with limit 1000 from no cursor, while the server's RSS is
 * sampled. Baseline: the same rows read through `pg` with keyset SELECTs of 1,000 and JSON-encoded.
 */
export async function runInitialSync(baseUrl: string, device: DeviceSession, server: ServerProcess, client: pg.Client): Promise<InitialSyncFigures> {
  const stopSampling = server.sampleRss();
  const t0 = performance.now();
  let rows = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await pull(baseUrl, device.token, cursor, 1000);
    rows += page.calendars.length + page.events.length + page.tasks.length + page.reminders.length;
    cursor = page.nextCursor;
    if (!page.hasMore) break;
  }
  const seconds = msSince(t0) / 1000;
  const peakRssMb = stopSampling();

  const t1 = performance.now();
  let baseRows = 0;
  for (const table of ['calendars', 'events', 'tasks', 'reminders']) {
    let after = '0';
    for (;;) {
      const res = await client.query(
        `SELECT * FROM ${table} WHERE user_id = $1 AND version > $2 ORDER BY version LIMIT 1000`,
        [device.userId, after],
      );
      if (res.rows.length === 0) break;
      JSON.stringify(res.rows);
      baseRows += res.rows.length;
      after = String(res.rows[res.rows.length - 1].version);
      if (res.rows.length < 1000) break;
    }
  }
  const baseSeconds = msSince(t1) / 1000;
  if (baseRows !== rows) throw new Error(`initial sync returned ${rows} rows, the table holds ${baseRows}`);
  const rowsPerSecond = rows / seconds;
  const baselineRowsPerSecond = baseRows / baseSeconds;
  return { rows, rowsPerSecond, baselineRowsPerSecond, ratio: rowsPerSecond / baselineRowsPerSecond, peakRssMb };
}
