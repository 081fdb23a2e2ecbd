import pg from 'pg';
import type { StandInSmsGateway } from '@calsync/testkit';
import { type DeviceSession, pullAll, push, signIn } from '../lib/client.js';
import { eventRows, fillOtherUsers, fillOwnRows } from '../lib/fill.js';
import { newEvent, uid } from '../lib/ids.js';
import { histogramBetween, scrapeMetrics } from '../lib/metrics.js';
import { msSince, percentile } from '../lib/stats.js';

/** One configuration of the small-push workload at one table size. */
export interface SmallPushRun {
  /** Rows in `events` when the run started (this user's and others'). */
  tableRows: number;
  ownRows: number;
  itemsPerPush: '1' | '1-5';
  inFlight: number;
  pushes: number;
  items: number;
  pushesPerSecond: number;
  itemsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** The same number of rows as one-row INSERT transactions through pg, `inFlight` connections (null without pg). */
  floorRowsPerSecond: number | null;
  /** itemsPerSecond / floorRowsPerSecond. */
  ratioFloor: number | null;
  /** CPU per push of the server process and the PostgreSQL backends of its database, in ms (null without a sampler). */
  cpuMsPerPush: number | null;
  /** The server process's part of `cpuMsPerPush` (null without a sampler). */
  serverCpuMsPerPush: number | null;
  /**
   * Pushes a unit of work held on average (the server's `calsync_sync_push_group_size` over the
   * measured pushes): pushes of one user that queue together share a unit (group commit).
   */
  pushesPerUnit: number;
}

/** What a small-push level needs: a signed-in user with a calendar, and how to fill and floor. */
export interface SmallPushTarget {
  readonly baseUrl: string;
  readonly session: DeviceSession;
  readonly calendarUid: string;
  /** A direct pg connection for set-based fills and the floor; null on PGlite (fill over HTTP, no floor). */
  readonly databaseUrl: string | null;
  /** CPU seconds used so far by the server and by its database (for CPU per push), when the bench can read them. */
  readonly cpuSeconds?: () => Promise<CpuSeconds>;
}

/** CPU seconds used so far by the server process and by the PostgreSQL backends of its database. */
export interface CpuSeconds {
  readonly server: number;
  readonly database: number;
}

/** Signs a fresh user in (a real OTP round) and returns it with its default calendar. */
export async function smallPushTarget(
  baseUrl: string,
  gateway: StandInSmsGateway,
  databaseUrl: string | null,
  cpuSeconds?: () => Promise<CpuSeconds>,
): Promise<SmallPushTarget> {
  const session = await signIn(baseUrl, gateway, '+15550000077', 'bench-small-push');
  const { pages } = await pullAll(baseUrl, session.token, undefined, 1000);
  const calendarUid = pages.flatMap((p) => p.calendars).find((c) => !c.deleted)?.uid;
  if (calendarUid === undefined) throw new Error('small push: the new user has no calendar');
  return { baseUrl, session, calendarUid, databaseUrl, ...(cpuSeconds ? { cpuSeconds } : {}) };
}

/** CPU seconds used so far by `server` and, read by `databaseCpu`, by the PostgreSQL backends of its database. */
export async function serverAndDatabaseCpu(serverCpu: () => number, databaseCpu: () => Promise<number>): Promise<CpuSeconds> {
  const database = await databaseCpu();
  return { server: serverCpu(), database };
}

/** Brings the table to `own` rows of this user (with receipts) and `others` rows of other users; answers the table's rows. */
export async function fillTable(target: SmallPushTarget, gateway: StandInSmsGateway, own: number, others: number): Promise<number> {
  if (target.databaseUrl !== null) {
    const client = new pg.Client({ connectionString: target.databaseUrl });
    await client.connect();
    try {
      await fillOtherUsers(client, others);
      await fillOwnRows(client, target.session.userId, target.calendarUid, own);
      return await eventRows(client);
    } finally {
      await client.end();
    }
  }
  // PGlite: only the server process can open its database, so fill through pushes of 1,000.
  const other = await signIn(target.baseUrl, gateway, '+15550000078', 'bench-small-other');
  const { pages } = await pullAll(target.baseUrl, other.token, undefined, 1000);
  const otherCalendar = pages.flatMap((p) => p.calendars).find((c) => !c.deleted)!.uid;
  for (const [token, calendarUid, count] of [[target.session.token, target.calendarUid, own], [other.token, otherCalendar, others]] as const) {
    for (let i = 0; i < count; i += 1000) {
      await push(target.baseUrl, token, { events: Array.from({ length: Math.min(1000, count - i) }, (_, j) => newEvent(calendarUid, i + j)) });
    }
  }
  return own + others;
}

/**
 * `inFlight` lanes of one user push until `pushes` pushes are done: one new event per push, or
 * (`1-5`) one to five items of which about half edit an event the lane made before. Returns
 * its length in seconds, pushes/s, items/s and the latency of each push.
 */
async function pushLanes(target: SmallPushTarget, itemsPerPush: '1' | '1-5', inFlight: number, pushes: number) {
  let started = 0;
  let items = 0;
  let counter = 0;
  const latencies: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      const mine = new Map<string, string>(); // uid -> version
      while (started < pushes) {
        started++;
        const n = itemsPerPush === '1' ? 1 : 1 + Math.floor(Math.random() * 5);
        const batch = new Map<string, Record<string, unknown> & { uid: string }>();
        const known = [...mine.keys()];
        for (let i = 0; i < n; i++) {
          if (itemsPerPush === '1-5' && known.length > 0 && Math.random() < 0.5) {
            const eventUid = known[Math.floor(Math.random() * known.length)]!;
            batch.set(eventUid, { uid: eventUid, op: 'upsert', baseVersion: mine.get(eventUid)!, title: `edit ${++counter}` });
          } else {
            const e = { ...newEvent(target.calendarUid, ++counter), uid: uid('sp-') };
            batch.set(e.uid, e);
          }
        }
        const body = [...batch.values()];
        const start = performance.now();
        const res = await push(target.baseUrl, target.session.token, { events: body });
        latencies.push(msSince(start));
        for (const r of res.events ?? []) {
          if (r.status !== 'created' && r.status !== 'updated') throw new Error(`small push: ${JSON.stringify(r)}`);
          mine.set(r.uid, r.version!);
        }
        items += body.length;
      }
    }),
  );
  const seconds = msSince(t0) / 1000;
  return { pushes: latencies.length, items, seconds, pushesPerSecond: latencies.length / seconds, itemsPerSecond: items / seconds, latencies };
}

/** The floor: `rows` one-row INSERT transactions (autocommit) into `events` over `inFlight` pg connections. */
async function floorRowsPerSecond(databaseUrl: string, rows: number, inFlight: number): Promise<number> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: inFlight });
  try {
    const { rows: u } = await pool.query<{ id: number }>(
      `INSERT INTO users (name) VALUES ('floor') RETURNING id`,
    );
    const userId = u[0]!.id;
    await pool.query(
      `INSERT INTO calendars (user_id, uid, version, created_at, updated_at, name, is_default)
       VALUES ($1, 'cal-floor', nextval('record_version_seq'), now(), now(), 'Floor', false)`,
      [userId],
    );
    const text = `INSERT INTO events (user_id, uid, version, created_at, updated_at, calendar_uid, title, start_time, end_time, all_day)
      VALUES ($1, $2, nextval('record_version_seq'), now(), now(), 'cal-floor', $3, $4, $5, false)`;
    await Promise.all(Array.from({ length: inFlight }, async () => { const c = await pool.connect(); c.release(); }));
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < rows) {
          const i = next++;
          const e = newEvent('cal-floor', i);
          await pool.query({ name: 'bench_floor_insert', text, values: [userId, e.uid, e.title, e.startTime, e.endTime] });
        }
      }),
    );
    return rows / (msSince(t0) / 1000);
  } finally {
    await pool.end();
  }
}

/** One measured `pushLanes` run, with a reader of the CPU per push it cost (`part` of server and database; null without a sampler). */
async function measuredLanes(target: SmallPushTarget, itemsPerPush: '1' | '1-5', inFlight: number, pushes: number) {
  const metricsBefore = await scrapeMetrics(target.baseUrl);
  const cpuBefore = await target.cpuSeconds?.();
  const m = await pushLanes(target, itemsPerPush, inFlight, pushes);
  const cpuAfter = await target.cpuSeconds?.();
  const groups = histogramBetween(metricsBefore, await scrapeMetrics(target.baseUrl), 'calsync_sync_push_group_size');
  const perPush = (part: (c: CpuSeconds) => number): number | null =>
    cpuBefore === undefined || cpuAfter === undefined ? null : ((part(cpuAfter) - part(cpuBefore)) * 1000) / m.pushes;
  return { m, perPush, pushesPerUnit: groups.sum / groups.count };
}

/**
 * Warm-up, not measured: the first pushes of a fresh server pay for JIT compilation and for
 * preparing each statement on each pooled connection, which would otherwise land on whichever
 * configuration runs first (and make the large table look faster than the small one). That takes
 * thousands of pushes: warmed by 200 pushes at 16 in flight, four rounds of 1,000 one-event pushes
 * at 4 in flight cost the server 2.1, 1.7, 1.0 and 0.9 ms of CPU a push; warmed by 3,000 at 16 in
 * flight, 1.0, 0.8, 0.6 and 0.6 ms. So 3,000 pushes (`pushes` × 3) first.
 */
async function warmUp(target: SmallPushTarget, pushes: number): Promise<void> {
  await pushLanes(target, '1', 16, 3 * pushes);
}

/**
 * The small-push workload at one table size: the table is brought to `own` rows of this user and
 * `others` rows of other users, then one item per push and 1–5 items per push, each with 4 and 16
 * in flight, each against its floor measured right after it (same rows, same concurrency).
 */
export async function runSmallPushLevel(
  target: SmallPushTarget,
  gateway: StandInSmsGateway,
  size: { own: number; others: number; pushes: number; inFlight?: readonly number[] },
): Promise<SmallPushRun[]> {
  const tableRows = await fillTable(target, gateway, size.own, size.others);
  // Warmed up (`warmUp`), then each configuration once unmeasured right before its measured run:
  // each configuration's own code paths want their own warm-up.
  await warmUp(target, size.pushes);
  const runs: SmallPushRun[] = [];
  for (const itemsPerPush of ['1', '1-5'] as const) {
    for (const inFlight of size.inFlight ?? [4, 16]) {
      await pushLanes(target, itemsPerPush, inFlight, size.pushes);
      const { m, perPush, pushesPerUnit } = await measuredLanes(target, itemsPerPush, inFlight, size.pushes);
      const floor = target.databaseUrl === null ? null : await floorRowsPerSecond(target.databaseUrl, m.items, inFlight);
      const run: SmallPushRun = {
        tableRows,
        ownRows: size.own,
        itemsPerPush,
        inFlight,
        pushes: m.pushes,
        items: m.items,
        pushesPerSecond: m.pushesPerSecond,
        itemsPerSecond: m.itemsPerSecond,
        p50Ms: percentile(m.latencies, 50),
        p99Ms: percentile(m.latencies, 99),
        floorRowsPerSecond: floor,
        ratioFloor: floor === null ? null : m.itemsPerSecond / floor,
        cpuMsPerPush: perPush((c) => c.server + c.database),
        serverCpuMsPerPush: perPush((c) => c.server),
        pushesPerUnit,
      };
      console.log(
        `bench: small push ${itemsPerPush} item(s), ${inFlight} in flight, ${tableRows} rows: ${Math.round(run.pushesPerSecond)} pushes/s` +
          (floor === null ? '' : `, floor ${Math.round(floor)} rows/s, ratio ${run.ratioFloor!.toFixed(2)}`) +
          (run.cpuMsPerPush === null ? '' : `, CPU ${run.cpuMsPerPush.toFixed(2)} ms per push (server ${run.serverCpuMsPerPush!.toFixed(2)})`) +
          `, ${run.pushesPerUnit.toFixed(2)} pushes a unit`,
      );
      runs.push(run);
    }
  }
  return runs;
}

/** The headline figures of the small-push workload (one item per push, 4 in flight). */
export interface SmallPushFigures {
  /** Pushes/s, one item per push, 4 in flight, at the small table. */
  perSecond: number | null;
  /** perSecond / the one-row-transaction floor at the same concurrency. */
  ratioFloor: number | null;
  /**
   * One-event pushes/s at the large table ÷ at the small one, the two measured in turn
   * (`alternateTables`; 1 = flat, below 1 slower at the large table); null when the run did not
   * measure both tables.
   */
  ratioLargeTable: number | null;
  /** Server and PostgreSQL CPU per push at the large table ÷ at the small one, in the same alternation (1 = flat). */
  cpuRatioLargeTable: number | null;
  /** perSecond on PGlite (same workload, small table). */
  pglitePerSecond: number | null;
  /**
   * CPU per one-event push (server process + PostgreSQL backends), ms, at the small table, 4 in
   * flight: over all the small table's rounds of the alternation when the run measured it, else
   * the level's run (`levelCpuMsPerPush`). The level's run is a single reading on a server that has
   * just started: equivalent builds read 1.12 and 1.62 ms there in two full runs, while each of
   * their four alternation rounds read 0.74–1.03 ms (bench/PERFORMANCE.md).
   */
  cpuMsPerPush: number | null;
  /** The server process's part of cpuMsPerPush. */
  serverCpuMsPerPush: number | null;
  /** The same CPU as read in the level's run at the small table (`runs`), ms, and the server's part. */
  levelCpuMsPerPush: number | null;
  levelServerCpuMsPerPush: number | null;
  runs: SmallPushRun[];
  /** The alternation the two ratios come from. */
  tables?: TableAlternation;
}

/** Picks the headline figures out of the runs of both levels, the two tables' alternation and the PGlite run. */
export function smallPushFigures(small: SmallPushRun[], large: SmallPushRun[], pglite: SmallPushRun[], tables: TableAlternation | null = null): SmallPushFigures {
  const headline = (runs: SmallPushRun[]) => runs.find((r) => r.itemsPerPush === '1' && r.inFlight === 4) ?? null;
  const s = headline(small);
  const p = headline(pglite);
  return {
    perSecond: s?.pushesPerSecond ?? null,
    ratioFloor: s?.ratioFloor ?? null,
    ratioLargeTable: tables?.ratio ?? null,
    cpuRatioLargeTable: tables?.cpuRatio ?? null,
    pglitePerSecond: p?.pushesPerSecond ?? null,
    cpuMsPerPush: tables ? tables.smallCpuMsPerPush : (s?.cpuMsPerPush ?? null),
    serverCpuMsPerPush: tables ? tables.smallServerCpuMsPerPush : (s?.serverCpuMsPerPush ?? null),
    levelCpuMsPerPush: s?.cpuMsPerPush ?? null,
    levelServerCpuMsPerPush: s?.serverCpuMsPerPush ?? null,
    runs: [...small, ...large, ...pglite.map((r) => ({ ...r, pglite: true }))],
    ...(tables ? { tables } : {}),
  };
}

/** One measured run of one table in the alternation: one new event per push, 4 in flight. */
export interface TableRun {
  /** Rows in `events` of the table's database when the alternation started. */
  tableRows: number;
  pushes: number;
  seconds: number;
  pushesPerSecond: number;
  /** Server and PostgreSQL CPU per push, ms (null without a sampler), and the server's part. */
  cpuMsPerPush: number | null;
  serverCpuMsPerPush: number | null;
}

/** The two tables measured in turn (`alternateTables`). */
export interface TableAlternation {
  /** Each round's two runs; the round's first side alternates (small first in round 1). */
  rounds: { small: TableRun; large: TableRun }[];
  /** The large table's pushes/s ÷ the small one's, each over all its rounds (1 = flat; below 1: slower at the large table). */
  ratio: number;
  /** The large table's server and PostgreSQL CPU per push ÷ the small one's, over all rounds (1 = flat; above 1: dearer at the large table). */
  cpuRatio: number | null;
  /** The small table's server and PostgreSQL CPU per push over all its rounds, ms (null without a sampler), and the server's part. */
  smallCpuMsPerPush: number | null;
  smallServerCpuMsPerPush: number | null;
}

/**
 * Growth with data, measured in turn: `small` and `large` are the same user's workload on two
 * databases, each already filled to its size and served by a server process of its own started
 * for this. Both are warmed up the same way, then `rounds` rounds each push `pushes`
 * one-event pushes, 4 in flight, into each table, the order swapping every round. Measured one
 * after the other within seconds, the two tables see the same machine: run minutes apart, the
 * ratio of the same build read 0.71 and 1.24 in two runs half an hour apart (bench/PERFORMANCE.md).
 */
export async function alternateTables(
  small: SmallPushTarget & { readonly tableRows: number },
  large: SmallPushTarget & { readonly tableRows: number },
  options: { pushes: number; rounds: number },
): Promise<TableAlternation> {
  // Each side warmed up, then once unmeasured in the measured configuration, as a level warms each
  // of its configurations: without it the first side's first run read 1.37 ms of CPU a push
  // against 0.77–0.92 in its later rounds.
  for (const target of [small, large]) await warmUp(target, options.pushes);
  for (const target of [small, large]) await pushLanes(target, '1', 4, options.pushes);
  const run = async (target: SmallPushTarget & { readonly tableRows: number }): Promise<TableRun> => {
    const { m, perPush } = await measuredLanes(target, '1', 4, options.pushes);
    return {
      tableRows: target.tableRows,
      pushes: m.pushes,
      seconds: m.seconds,
      pushesPerSecond: m.pushesPerSecond,
      cpuMsPerPush: perPush((c) => c.server + c.database),
      serverCpuMsPerPush: perPush((c) => c.server),
    };
  };
  const rounds: TableAlternation['rounds'] = [];
  for (let i = 0; i < options.rounds; i++) {
    if (i % 2 === 0) {
      const s = await run(small);
      rounds.push({ small: s, large: await run(large) });
    } else {
      const l = await run(large);
      rounds.push({ small: await run(small), large: l });
    }
    const { small: s, large: l } = rounds.at(-1)!;
    console.log(
      `bench: tables in turn, round ${i + 1}: ${s.tableRows} rows ${Math.round(s.pushesPerSecond)} pushes/s` +
        `${s.cpuMsPerPush === null ? '' : ` (${s.cpuMsPerPush.toFixed(2)} ms)`}, ${l.tableRows} rows ${Math.round(l.pushesPerSecond)} pushes/s` +
        `${l.cpuMsPerPush === null ? '' : ` (${l.cpuMsPerPush.toFixed(2)} ms)`}`,
    );
  }
  const side = (pick: (r: TableAlternation['rounds'][number]) => TableRun) => {
    const runs = rounds.map(pick);
    const pushes = runs.reduce((a, r) => a + r.pushes, 0);
    const rate = pushes / runs.reduce((a, r) => a + r.seconds, 0);
    /** A per-push CPU figure over all the side's runs, each weighted by its pushes. */
    const pooled = (of: (r: TableRun) => number | null) => (runs.every((r) => of(r) !== null) ? runs.reduce((a, r) => a + of(r)! * r.pushes, 0) / pushes : null);
    return { rate, cpu: pooled((r) => r.cpuMsPerPush), serverCpu: pooled((r) => r.serverCpuMsPerPush) };
  };
  const s = side((r) => r.small);
  const l = side((r) => r.large);
  return {
    rounds,
    ratio: l.rate / s.rate,
    cpuRatio: s.cpu === null || l.cpu === null ? null : l.cpu / s.cpu,
    smallCpuMsPerPush: s.cpu,
    smallServerCpuMsPerPush: s.serverCpu,
  };
}
