import { Agent, request } from 'undici';
import type { DeviceSession } from '../lib/client.js';
import { push } from '../lib/client.js';
import type { ServerProcess } from '../lib/server.js';
import { msSince, percentile } from '../lib/stats.js';

/** Figures of the live-notification workload. */
export interface NotificationFigures {
  twoNodes: boolean;
  pushes: number;
  /** Push sent on node 1 until the `changed` event of its version arrived on node 2's stream. */
  writeToNotifyP50Ms: number;
  writeToNotifyP99Ms: number;
  /** Baseline in the same run: the push round trip alone (same pushes). */
  pushRoundTripP50Ms: number;
  pushRoundTripP99Ms: number;
  streams: number;
  rssBeforeStreamsMb: number;
  rssWithStreamsMb: number;
  kbPerStream: number;
  /** One push until all of the open streams got its `changed`. */
  fanOutAllStreamsMs: number;
}

/** An open event stream read by undici, reporting the ids of `changed` events as they arrive. */
interface BenchStream {
  readonly ready: Promise<void>;
  onChanged: (id: string) => void;
  close(): void;
}

async function openStream(baseUrl: string, token: string, dispatcher: Agent): Promise<BenchStream> {
  const abort = new AbortController();
  const res = await request(`${baseUrl}/api/sync/stream`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, dispatcher, signal: abort.signal });
  if (res.statusCode !== 200) throw new Error(`stream refused: ${res.statusCode} ${await res.body.text()}`);
  let buffer = '';
  let resolveReady: () => void = () => {};
  const stream: BenchStream = {
    ready: new Promise<void>((r) => (resolveReady = r)),
    onChanged: () => {},
    close: () => abort.abort(),
  };
  res.body.setEncoding('utf8');
  res.body.on('data', (chunk: string) => {
    buffer += chunk;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (block.includes('event: ready')) resolveReady();
      const id = /^id: (\d+)$/m.exec(block)?.[1];
      if (id !== undefined && block.includes('event: changed')) stream.onChanged(id);
    }
  });
  res.body.on('error', () => {});
  return stream;
}

/**
 * Write→notify latency between two app nodes (a device pushes through node 1; a device of the same
 * user streams from node 2, fanned out by PostgreSQL NOTIFY), against the push round trip of the
 * same pushes as the baseline; then node 2's resident memory with `streams` open streams, and the
 * time one push takes to reach all of them. On PGlite both roles are the one node.
 */
export async function runNotifications(
  node1: ServerProcess,
  node2: ServerProcess,
  writer: DeviceSession,
  reader: DeviceSession,
  opts: { pushes: number; streams: number },
): Promise<NotificationFigures> {
  const dispatcher = new Agent({ connections: opts.streams + 16, keepAliveTimeout: 60_000 });
  const watch = await openStream(node2.baseUrl, reader.token, dispatcher);
  await watch.ready;
  const latency: number[] = [];
  const roundTrip: number[] = [];
  for (let i = 0; i < opts.pushes; i++) {
    const arrived = new Map<string, number>();
    watch.onChanged = (id) => arrived.set(id, performance.now());
    const start = performance.now();
    const res = await push(node1.baseUrl, writer.token, { tasks: [{ uid: `notify-${i}-${Date.now()}`, op: 'upsert', baseVersion: null, title: `n${i}` }] });
    roundTrip.push(msSince(start));
    const result = res.tasks[0];
    const version = String(result && result.status !== 'error' ? result.version : null);
    while (!arrived.has(version)) await new Promise((r) => setTimeout(r, 1));
    latency.push(arrived.get(version)! - start);
  }
  watch.close();
  await new Promise((r) => setTimeout(r, 500));

  const rssBefore = node2.rssMb();
  const open: BenchStream[] = [];
  for (let i = 0; i < opts.streams; i += 50) {
    const batch = await Promise.all(Array.from({ length: Math.min(50, opts.streams - i) }, () => openStream(node2.baseUrl, reader.token, dispatcher)));
    await Promise.all(batch.map((s) => s.ready));
    open.push(...batch);
  }
  await new Promise((r) => setTimeout(r, 1000));
  const rssWith = node2.rssMb();

  let reached = 0;
  let allReached: () => void = () => {};
  const done = new Promise<void>((r) => (allReached = r));
  const start = performance.now();
  for (const s of open) {
    s.onChanged = () => {
      if (++reached === open.length) allReached();
    };
  }
  await push(node1.baseUrl, writer.token, { tasks: [{ uid: `fan-out-${Date.now()}`, op: 'upsert', baseVersion: null, title: 'fan out' }] });
  await done;
  const fanOut = msSince(start);
  for (const s of open) s.close();
  await dispatcher.close().catch(() => undefined);

  return {
    twoNodes: node1 !== node2,
    pushes: opts.pushes,
    writeToNotifyP50Ms: percentile(latency, 50),
    writeToNotifyP99Ms: percentile(latency, 99),
    pushRoundTripP50Ms: percentile(roundTrip, 50),
    pushRoundTripP99Ms: percentile(roundTrip, 99),
    streams: opts.streams,
    rssBeforeStreamsMb: rssBefore,
    rssWithStreamsMb: rssWith,
    kbPerStream: ((rssWith - rssBefore) * 1024) / opts.streams,
    fanOutAllStreamsMs: fanOut,
  };
}
