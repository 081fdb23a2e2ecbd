import type pg from 'pg';
import { type DeviceSession, pullAll, push } from '../lib/client.js';
import { newEvent, uid } from '../lib/ids.js';
import { msSince } from '../lib/stats.js';

/** Figures of the upload workload. */
export interface UploadFigures {
  items: number;
  itemsPerSecond: number;
  baselinePerItemTxPerSecond: number;
  baselineSetBasedPerSecond: number;
  ratioPerItemFloor: number;
  ratioSetBased: number;
  calendarUid: string;
}

/**
 * The device bootstraps, pushes a calendar and then `items` events into it in batches of 1,000;
 * answers the calendar, the events and the seconds the event pushes took.
 */
export async function uploadEvents(baseUrl: string, device: DeviceSession, items: number) {
  await pullAll(baseUrl, device.token, undefined, 1000); // bootstrap first, as the protocol says
  const calendarUid = uid('cal-');
  await push(baseUrl, device.token, { calendars: [{ uid: calendarUid, op: 'upsert', baseVersion: null, name: 'Bench' }] });
  const events = Array.from({ length: items }, (_, i) => newEvent(calendarUid, i));
  const t0 = performance.now();
  for (let i = 0; i < events.length; i += 1000) {
    const res = await push(baseUrl, device.token, { events: events.slice(i, i + 1000) });
    const bad = res.events?.filter((r) => r.status !== 'created') ?? [];
    if (bad.length) throw new Error(`upload: ${bad.length} items not created, first: ${JSON.stringify(bad[0])}`);
  }
  return { calendarUid, events, seconds: msSince(t0) / 1000 };
}

/**
 * One device pushes `items` events (plus their calendar) in batches of 1,000, against two floors
 * measured through `pg` on the same database in the same run: one INSERT transaction per row, and
 * one multi-row INSERT per 1,000 rows, into a copy of the events table with the same indexes.
 */
export async function runUpload(baseUrl: string, device: DeviceSession, client: pg.Client, items: number): Promise<UploadFigures> {
  const { calendarUid, events, seconds } = await uploadEvents(baseUrl, device, items);
  const ours = items / seconds;

  // Baselines: the same rows, into a table shaped like `events` with the same indexes.
  await client.query('DROP TABLE IF EXISTS bench_baseline_events');
  await client.query('CREATE TABLE bench_baseline_events (LIKE events INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING INDEXES)');
  const cols = ['user_id', 'uid', 'version', 'created_at', 'updated_at', 'calendar_uid', 'title', 'start_time', 'end_time'];
  const rowValues = (e: (typeof events)[number], suffix: string) => {
    const now = new Date().toISOString();
    return [device.userId, e.uid + suffix, now, now, calendarUid, e.title, e.startTime, e.endTime];
  };
  const insertOne = `INSERT INTO bench_baseline_events (${cols.join(',')}) VALUES ($1,$2,nextval('record_version_seq'),$3,$4,$5,$6,$7,$8)`;

  const t1 = performance.now();
  for (const e of events) {
    const v = rowValues(e, '-a');
    await client.query(insertOne, v); // autocommit: one transaction per row
  }
  const perItemTx = items / (msSince(t1) / 1000);

  const t2 = performance.now();
  for (let i = 0; i < events.length; i += 1000) {
    const chunk = events.slice(i, i + 1000);
    const params: unknown[] = [];
    const tuples = chunk.map((e, j) => {
      params.push(...rowValues(e, '-b'));
      const b = j * 8;
      return `($${b + 1},$${b + 2},nextval('record_version_seq'),$${b + 3},$${b + 4},$${b + 5},$${b + 6},$${b + 7},$${b + 8})`;
    });
    await client.query(`INSERT INTO bench_baseline_events (${cols.join(',')}) VALUES ${tuples.join(',')}`, params);
  }
  const setBased = items / (msSince(t2) / 1000);
  await client.query('DROP TABLE bench_baseline_events');

  return {
    items,
    itemsPerSecond: ours,
    baselinePerItemTxPerSecond: perItemTx,
    baselineSetBasedPerSecond: setBased,
    ratioPerItemFloor: ours / perItemTx,
    ratioSetBased: ours / setBased,
    calendarUid,
  };
}
