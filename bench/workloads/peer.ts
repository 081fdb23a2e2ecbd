import { request } from 'undici';
import type { StandInSmsGateway } from '@calsync/testkit';
import { agent, pullAll, push, signIn, type DeviceSession } from '../lib/client.js';
import { newEvent } from '../lib/ids.js';
import { PouchPeer } from '../lib/pouch-peer.js';
import { stolenSeconds } from '../lib/server.js';
import { lanes, percentile } from '../lib/stats.js';
import type { CpuSeconds } from './small-push.js';

/** One workload on both servers: events (or writes) per second, and ours ÷ the peer's. */
export interface PeerPair {
  items: number;
  calsyncPerSecond: number;
  pouchdbPerSecond: number;
  ratio: number;
  /** CPU a written item cost the side's processes: ours the server's and PostgreSQL's backends', PouchDB's its one server process (LevelDB runs inside it). */
  calsyncCpuMsPerItem: number;
  pouchdbCpuMsPerItem: number;
  /** PouchDB's CPU per item ÷ ours: the rate ratio if each side were bound by its own processes' CPU alone. */
  cpuRatio: number;
  /** CPU this process (the load generator: HTTP client, JSON) spent per item against each side. */
  calsyncClientCpuMsPerItem: number;
  pouchdbClientCpuMsPerItem: number;
  /** CPU seconds the hypervisor took from this machine during each side's run (/proc/stat steal). */
  calsyncStolenSeconds: number;
  pouchdbStolenSeconds: number;
}

/** Figures of the peer workload. */
export interface PeerFigures {
  /** One event per request, 4 in flight, N=10,000 (`--quick`: 2,000): ours ÷ PouchDB's. */
  onePerRequestRatio: number;
  /** Batches of 1,000 into a user (database) that has the one-per-request run's events: ours ÷ PouchDB's `_bulk_docs`. */
  batchRatio: number;
  /** Conflicting write pairs: writes/s, ours ÷ PouchDB's. */
  conflictRatio: number;
  /** Our batches into that user ÷ the same batches into an empty user (1 = flat): the median of the rounds' quotients. */
  batchVsEmpty: number;
  onePerRequestSmall: PeerPair;
  onePerRequest: PeerPair;
  /** Each batch workload's round with the median ratio (`batchRatio` is `batch`'s). */
  batchIntoEmpty: PeerPair;
  batch: PeerPair;
  /** Every round of the two batch workloads, in the order they ran. */
  batchRounds: { batchIntoEmpty: PeerPair; batch: PeerPair }[];
  conflicts: PeerPair;
}

/** What one side must do for the workloads. */
interface Side {
  readonly name: 'calsync' | 'pouchdb';
  /** CPU seconds the side's processes have used so far. */
  cpuSeconds(): Promise<number>;
  /** A new user (database) to write into; answers a handle the other calls take. */
  fresh(label: string): Promise<Target>;
}

interface Target {
  /** Writes one event per request. */
  one(i: number): Promise<void>;
  /** Writes a batch of events. */
  batch(from: number, count: number): Promise<void>;
  /** Creates `count` events and answers a pair writer: two writers update event k from the same base, together; answers [accepted, refused]. */
  conflictPairs(count: number): Promise<(k: number) => Promise<[number, number]>>;
}

const IN_FLIGHT = 4;

/** Our server: one signed-in user per target (a second device for the conflicting writer). */
function calsyncSide(baseUrl: string, gateway: StandInSmsGateway, cpuSeconds: () => Promise<CpuSeconds>): Side {
  let users = 0;
  return {
    name: 'calsync',
    cpuSeconds: async () => {
      const used = await cpuSeconds();
      return used.server + used.database;
    },
    async fresh(label) {
      const phone = `+1666${String(++users).padStart(7, '0')}`;
      const writer = await signIn(baseUrl, gateway, phone, `peer-${label}-a`);
      const { pages } = await pullAll(baseUrl, writer.token, undefined, 1000);
      const calendarUid = pages.flatMap((p) => p.calendars).find((c) => !c.deleted)!.uid;
      const created = (res: Awaited<ReturnType<typeof push>>) => {
        const bad = (res.events ?? []).filter((r) => r.status !== 'created');
        if (bad.length > 0) throw new Error(`peer (calsync): ${bad.length} not created, first ${JSON.stringify(bad[0])}`);
        return res.events ?? [];
      };
      return {
        one: async (i) => void created(await push(baseUrl, writer.token, { events: [newEvent(calendarUid, i)] })),
        batch: async (from, count) => void created(await push(baseUrl, writer.token, { events: Array.from({ length: count }, (_, j) => newEvent(calendarUid, from + j)) })),
        async conflictPairs(count) {
          const other: DeviceSession = await signIn(baseUrl, gateway, phone, `peer-${label}-b`);
          const seeded: { uid: string; version: string }[] = [];
          for (let i = 0; i < count; i += 1000) {
            const results = created(await push(baseUrl, writer.token, { events: Array.from({ length: Math.min(1000, count - i) }, (_, j) => newEvent(calendarUid, i + j)) }));
            seeded.push(...results.map((r) => ({ uid: r.uid, version: String((r as { version?: unknown }).version) })));
          }
          return async (k) => {
            const { uid, version } = seeded[k]!;
            const edit = (token: string, title: string) => push(baseUrl, token, { events: [{ uid, op: 'upsert', baseVersion: version, title }] });
            const answers = await Promise.all([edit(writer.token, `a ${k}`), edit(other.token, `b ${k}`)]);
            const statuses = answers.map((a) => a.events![0]!.status);
            return [statuses.filter((s) => s === 'updated').length, statuses.filter((s) => s === 'conflict').length];
          };
        },
      };
    },
  };
}

/** PouchDB's server over HTTP: one database per target, documents shaped like our events. */
function pouchSide(baseUrl: string, cpuSeconds: () => number): Side {
  const send = async (method: 'PUT' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: unknown }> => {
    const res = await request(`${baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: agent,
    });
    return { status: res.statusCode, json: await res.body.json() };
  };
  const doc = (i: number) => {
    const { uid, op: _op, baseVersion: _base, ...fields } = newEvent('calendar', i);
    return { _id: uid, type: 'event', ...fields };
  };
  const ok = (r: { status: number; json: unknown }, what: string) => {
    if (r.status >= 300) throw new Error(`peer (pouchdb): ${what} -> ${r.status} ${JSON.stringify(r.json).slice(0, 200)}`);
    return r.json;
  };
  let dbs = 0;
  return {
    name: 'pouchdb',
    cpuSeconds: async () => cpuSeconds(),
    async fresh(label) {
      const db = `/peer-${label}-${++dbs}`;
      ok(await send('PUT', db), 'create database');
      const bulk = async (docs: unknown[]) => {
        const answers = ok(await send('POST', `${db}/_bulk_docs`, { docs }), '_bulk_docs') as { ok?: boolean; id: string; rev: string }[];
        if (answers.some((a) => !a.ok)) throw new Error(`peer (pouchdb): _bulk_docs refused ${JSON.stringify(answers.find((a) => !a.ok))}`);
        return answers;
      };
      return {
        one: async (i) => {
          const d = doc(i);
          ok(await send('PUT', `${db}/${d._id}`, d), 'PUT');
        },
        batch: async (from, count) => void (await bulk(Array.from({ length: count }, (_, j) => doc(from + j)))),
        async conflictPairs(count) {
          const seeded: { id: string; rev: string; body: ReturnType<typeof doc> }[] = [];
          for (let i = 0; i < count; i += 1000) {
            const docs = Array.from({ length: Math.min(1000, count - i) }, (_, j) => doc(i + j));
            const answers = await bulk(docs);
            answers.forEach((a, j) => seeded.push({ id: a.id, rev: a.rev, body: docs[j]! }));
          }
          return async (k) => {
            const { id, rev, body } = seeded[k]!;
            const edit = (title: string) => send('PUT', `${db}/${id}`, { ...body, _rev: rev, title });
            const answers = await Promise.all([edit(`a ${k}`), edit(`b ${k}`)]);
            return [answers.filter((a) => a.status === 201).length, answers.filter((a) => a.status === 409).length];
          };
        },
      };
    },
  };
}

/**
 * Runs a workload on both sides, in the order given: `prepare` sets the side up (users, seed data)
 * untimed and answers the timed part, which answers its seconds. Answers both rates, and each
 * side's CPU, the load generator's CPU and the stolen time over the timed part.
 */
async function both(order: readonly Side[], items: number, prepare: (side: Side) => Promise<() => Promise<number>>): Promise<PeerPair> {
  const figures: Partial<Record<Side['name'], { rate: number; cpuMs: number; clientCpuMs: number; stolen: number }>> = {};
  for (const side of order) {
    const run = await prepare(side);
    const before = { side: await side.cpuSeconds(), own: process.cpuUsage(), stolen: stolenSeconds() };
    const seconds = await run();
    const sideCpu = (await side.cpuSeconds()) - before.side;
    const own = process.cpuUsage(before.own);
    figures[side.name] = { rate: items / seconds, cpuMs: (sideCpu * 1000) / items, clientCpuMs: (own.user + own.system) / 1000 / items, stolen: stolenSeconds() - before.stolen };
    const f = figures[side.name]!;
    console.log(`bench: peer ${side.name}: ${Math.round(f.rate)}/s, ${f.cpuMs.toFixed(3)} ms of its CPU an item (load generator ${f.clientCpuMs.toFixed(3)}), ${f.stolen.toFixed(2)} s stolen`);
  }
  const ours = figures.calsync!;
  const theirs = figures.pouchdb!;
  return {
    items,
    calsyncPerSecond: ours.rate,
    pouchdbPerSecond: theirs.rate,
    ratio: ours.rate / theirs.rate,
    calsyncCpuMsPerItem: ours.cpuMs,
    pouchdbCpuMsPerItem: theirs.cpuMs,
    cpuRatio: theirs.cpuMs / ours.cpuMs,
    calsyncClientCpuMsPerItem: ours.clientCpuMs,
    pouchdbClientCpuMsPerItem: theirs.clientCpuMs,
    calsyncStolenSeconds: ours.stolen,
    pouchdbStolenSeconds: theirs.stolen,
  };
}

/**
 * The peer workload: our server and PouchDB's (express-pouchdb on LevelDB), the same event
 * content, one user (one database), 4 requests in flight: one event per request at `small` and
 * `large` events, batches of 1,000 (`batch` events) into an empty user and into a user with `large`
 * events, and `conflicts` writes as pairs of writers updating one event from the same base version.
 * The two servers take turns, each workload starting with the one that went second before (a loaded
 * machine's drift falls on both). A batch workload lasts about a second, so it runs in
 * `batchRounds` rounds and reports the median: the first round writes into the user the
 * one-per-request run left, each later one into a fresh user first given `large` events in
 * batches, untimed.
 */
export async function runPeer(
  baseUrl: string,
  gateway: StandInSmsGateway,
  sizes: { small: number; large: number; batch: number; batchRounds: number; conflicts: number },
  /** Our side's CPU so far: the server's and its database's (on PGlite the database runs inside the server: 0). */
  ourCpu: () => Promise<CpuSeconds>,
): Promise<PeerFigures> {
  const peer = new PouchPeer();
  await peer.start();
  try {
    const ours = calsyncSide(baseUrl, gateway, ourCpu);
    const theirs = pouchSide(peer.baseUrl, () => peer.cpuSeconds());
    let order: Side[] = [ours, theirs];
    const turn = () => (order = [order[1]!, order[0]!]);
    const filled = new Map<Side['name'], Target>();

    console.log(`bench: peer, one event per request, N=${sizes.small}`);
    const onePerRequestSmall = await both(order, sizes.small, async (side) => {
      const target = await side.fresh('small');
      return () => lanes(sizes.small, IN_FLIGHT, (i) => target.one(i));
    });
    turn();
    console.log(`bench: peer, one event per request, N=${sizes.large}`);
    const onePerRequest = await both(order, sizes.large, async (side) => {
      const target = await side.fresh('large');
      filled.set(side.name, target);
      return () => lanes(sizes.large, IN_FLIGHT, (i) => target.one(i));
    });
    turn();
    const batches = Math.ceil(sizes.batch / 1000);
    /** A fresh user given `large` events in batches (untimed). */
    const filledUser = async (side: Side): Promise<Target> => {
      const target = await side.fresh('filled');
      await lanes(Math.ceil(sizes.large / 1000), IN_FLIGHT, (b) => target.batch(b * 1000, Math.min(1000, sizes.large - b * 1000)));
      return target;
    };
    const batchRounds: PeerFigures['batchRounds'] = [];
    for (let round = 1; round <= sizes.batchRounds; round++) {
      console.log(`bench: peer, round ${round}: batches of 1,000 into an empty user, N=${sizes.batch}`);
      const batchIntoEmpty = await both(order, sizes.batch, async (side) => {
        const target = await side.fresh('empty');
        return () => lanes(batches, IN_FLIGHT, (b) => target.batch(b * 1000, 1000));
      });
      turn();
      console.log(`bench: peer, round ${round}: batches of 1,000 into a user with ${sizes.large} events, N=${sizes.batch}`);
      const batch = await both(order, sizes.batch, async (side) => {
        const target = (round === 1 && filled.get(side.name)) || (await filledUser(side));
        return () => lanes(batches, IN_FLIGHT, (b) => target.batch(sizes.large + b * 1000, 1000));
      });
      turn();
      batchRounds.push({ batchIntoEmpty, batch });
    }
    /** The pair of the round whose ratio is the median (`percentile`'s nearest rank). */
    const medianPair = (pick: (round: PeerFigures['batchRounds'][number]) => PeerPair): PeerPair => {
      const median = percentile(batchRounds.map((r) => pick(r).ratio), 50);
      return batchRounds.map(pick).find((p) => p.ratio === median)!;
    };
    const batch = medianPair((r) => r.batch);
    const batchIntoEmpty = medianPair((r) => r.batchIntoEmpty);
    const batchVsEmpty = percentile(batchRounds.map((r) => r.batch.calsyncPerSecond / r.batchIntoEmpty.calsyncPerSecond), 50);
    const pairs = sizes.conflicts / 2;
    console.log(`bench: peer, conflicting write pairs, N=${sizes.conflicts}`);
    const conflicts = await both(order, sizes.conflicts, async (side) => {
      const target = await side.fresh('conflicts');
      const pair = await target.conflictPairs(pairs);
      return async () => {
        let accepted = 0;
        let refused = 0;
        // Two pairs at a time: 4 requests in flight.
        const seconds = await lanes(pairs, IN_FLIGHT / 2, async (k) => {
          const [a, r] = await pair(k);
          accepted += a;
          refused += r;
        });
        if (accepted !== pairs || refused !== pairs) throw new Error(`peer (${side.name}): ${accepted} writes accepted and ${refused} refused of ${pairs} pairs`);
        return seconds;
      };
    });
    return {
      onePerRequestRatio: onePerRequest.ratio,
      batchRatio: batch.ratio,
      conflictRatio: conflicts.ratio,
      batchVsEmpty,
      onePerRequestSmall,
      onePerRequest,
      batchIntoEmpty,
      batch,
      batchRounds,
      conflicts,
    };
  } finally {
    await peer.stop();
  }
}
