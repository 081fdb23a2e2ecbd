import type { SyncClient } from '@calsync/client';
import { openEventStream, startStandInFcm, startStandInSmsGateway, until, type OpenedStream, type StandInFcm, type StandInSmsGateway } from '@calsync/testkit';
import { randomInt } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleValue } from './lib/metrics-text.js';
import { createScratchDatabase, type ScratchDatabase } from './lib/scratch-database.js';
import { RealServerProcess } from './lib/server-process.js';
import { signedInPhone } from './lib/devices.js';
import { standInFcmEnv, testServerEnv } from './lib/test-server.js';

// Live data-changed notifications through the real server processes: on PostgreSQL two app nodes
// share one database (a device writes through node 1, a device streams from node 2); on embedded
// PGlite the single-node path. FCM goes to a local stand-in that checks the OAuth2 exchange.

interface Kind {
  readonly name: string;
  readonly twoNodes: boolean;
  readonly make: () => Promise<ScratchDatabase>;
}
const kinds: Kind[] = [{ name: 'PGlite (one node)', twoNodes: false, make: async () => ({ url: 'pglite://memory', drop: async () => {} }) }];
const serverUrl = process.env.TEST_DATABASE_URL;
if (serverUrl) kinds.push({ name: 'PostgreSQL (two nodes)', twoNodes: true, make: () => createScratchDatabase(serverUrl) });

const COALESCE_MS = 2500;

describe.each(kinds)('live notifications on $name', ({ twoNodes, make }) => {
  let sms: StandInSmsGateway;
  let fcm: StandInFcm;
  let database: ScratchDatabase;
  let node1: RealServerProcess;
  let node2: RealServerProcess;
  const clients: SyncClient[] = [];
  const streams: OpenedStream[] = [];
  const phone = `+1555${String(randomInt(1_000_000, 9_999_999))}`;

  const client = async (base: string, name: string, fcmToken: string): Promise<SyncClient> => {
    const c = await signedInPhone(base, phone, sms, name, fcmToken);
    clients.push(c);
    return c;
  };
  const tokenOf = (c: SyncClient): string => (c.auth as unknown as { accessToken(): string }).accessToken();
  const stream = async (base: string, token: string, extra: Record<string, string> = {}): Promise<OpenedStream> => {
    const s = await openEventStream(`${base}/api/sync/stream`, { authorization: `Bearer ${token}`, ...extra });
    streams.push(s);
    return s;
  };
  const pushTask = async (base: string, token: string, uid: string): Promise<string> => {
    const res = await fetch(`${base}/api/sync/push`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tasks: [{ uid, op: 'upsert', baseVersion: null, title: uid }] }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { tasks: { version: string }[] } }).data.tasks[0]!.version;
  };

  let writer: SyncClient;
  let reader: SyncClient;

  beforeAll(async () => {
    sms = await startStandInSmsGateway();
    fcm = await startStandInFcm();
    database = await make();
    const env = {
      DATABASE_URL: database.url,
      ...testServerEnv('e2e', sms.url),
      ...standInFcmEnv(fcm),
      RATE_LIMIT_MAX_REQUESTS: '100000',
      NOTIFY_COALESCE_MS: String(COALESCE_MS),
    };
    node1 = new RealServerProcess(env);
    await node1.start();
    node2 = twoNodes ? new RealServerProcess(env) : node1;
    if (twoNodes) await node2.start();
    writer = await client(node1.baseUrl, 'writer', 'fcm-writer');
    reader = await client(node2.baseUrl, 'reader', 'fcm-reader');
  }, 180_000);

  afterAll(async () => {
    for (const s of streams) s.close();
    for (const c of clients) await c.close().catch(() => undefined);
    for (const n of new Set([node1, node2])) if (n?.running) await n.terminate();
    await fcm?.close();
    await sms?.close();
    await database?.drop();
  }, 60_000);

  it('a change written through node 1 reaches the SDK streaming from node 2, which pulls it', async () => {
    const watch = await stream(node2.baseUrl, tokenOf(reader));
    expect((await watch.nextEvent()).event).toBe('ready');
    reader.start();
    const uid = await writer.tasks.put({ title: 'written on node 1' });
    await writer.sync();
    const changed = await watch.nextEvent(15_000);
    expect(changed.event).toBe('changed');
    expect(changed.id).toMatch(/^[0-9]+$/);
    await until(() => reader.tasks.get(uid) !== undefined, { ms: 15_000, what: 'the reader to pull the task' });
    expect(reader.tasks.get(uid)).toMatchObject({ title: 'written on node 1' });
    const metrics = await (await fetch(`${node2.baseUrl}/metrics`)).text();
    expect(sampleValue(metrics, 'calsync_notification_streams_open')).toBeGreaterThanOrEqual(2);
    expect(sampleValue(metrics, 'calsync_notifications_sent_total{channel="stream"}')).toBeGreaterThanOrEqual(1);
  });

  it('FCM: a burst of 20 pushes is one coalesced message to the other device, after one OAuth2 exchange', async () => {
    // Let the window the previous test's change opened close first.
    await new Promise((r) => setTimeout(r, COALESCE_MS * 1.5));
    const before = fcm.delivered.length;
    let last = '';
    for (let i = 0; i < 20; i++) last = await pushTask(node1.baseUrl, tokenOf(writer), `burst-${i}`);
    await until(() => fcm.delivered.length > before, { ms: COALESCE_MS * 4, what: 'the FCM message' });
    await new Promise((r) => setTimeout(r, COALESCE_MS * 1.5));
    const burst = fcm.delivered.slice(before);
    expect(fcm.rejected).toEqual([]);
    expect(burst.map((m) => [m.token, m.data])).toEqual([['fcm-reader', { type: 'sync', version: last }]]);
    expect(fcm.exchanges.length).toBeGreaterThanOrEqual(1);
    const metrics = await (await fetch(`${node1.baseUrl}/metrics`)).text();
    expect(sampleValue(metrics, 'calsync_notifications_sent_total{channel="fcm"}')).toBeGreaterThanOrEqual(2);
  });

  it('a rolled-back transaction on the notification channel notifies nobody', async () => {
    const watch = await stream(node2.baseUrl, tokenOf(reader));
    await watch.nextEvent();
    if (database.url.startsWith('postgres')) {
      const c = new pg.Client({ connectionString: database.url });
      await c.connect();
      try {
        const { rows } = await c.query<{ id: number }>('select id from users where phone = $1', [phone]);
        await c.query('begin');
        await c.query(`select pg_notify('calsync_changes_' || current_schema(), $1)`, [JSON.stringify({ u: rows[0]!.id, v: '999999999999', d: null })]);
        await c.query('rollback');
      } finally {
        await c.end();
      }
    }
    const v = await pushTask(node1.baseUrl, tokenOf(writer), 'after-rollback');
    const next = await watch.nextEvent(15_000);
    expect(next).toMatchObject({ event: 'changed', id: v });
  });

  if (twoNodes) {
    it('a LISTEN connection killed mid-run reconnects, and no change is missed', async () => {
      const watch = await stream(node2.baseUrl, tokenOf(reader));
      await watch.nextEvent();
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      try {
        const killed = await admin.query(
          `select pg_terminate_backend(pid) as ok from pg_stat_activity where application_name = 'calsync change feed' and datname = current_database()`,
        );
        expect(killed.rows.length).toBe(2);
      } finally {
        await admin.end();
      }
      // Written while the nodes may still be reconnecting: the resync after the reconnect covers it.
      const uid = await writer.tasks.put({ title: 'while LISTEN was down' });
      await writer.sync();
      const version = BigInt(String(writer.tasks.get(uid)?.version ?? '0'));
      for (;;) {
        const e = await watch.nextEvent(30_000);
        expect(e.event).toBe('changed');
        if (BigInt(e.id ?? '0') >= version) break;
      }
      await until(() => reader.tasks.get(uid) !== undefined, { ms: 15_000, what: 'the reader to pull the task' });
      // And the feed is live again for ordinary changes.
      const v2 = await pushTask(node1.baseUrl, tokenOf(writer), 'after-reconnect');
      await until(async () => (await watch.nextEvent(15_000)).id === v2, { ms: 20_000, what: 'the next changed' });
    });
  }

  it('revoking a device on node 1 closes its stream on node 2 with revoked', async () => {
    const extra = await client(node2.baseUrl, 'to-revoke', 'fcm-extra');
    const watch = await stream(node2.baseUrl, tokenOf(extra));
    await watch.nextEvent();
    const devices = (await (await fetch(`${node1.baseUrl}/api/auth/devices`, { headers: { authorization: `Bearer ${tokenOf(writer)}` } })).json()) as {
      data: { devices: { uid: string; name: string }[] };
    };
    const target = devices.data.devices.find((d) => d.name === 'to-revoke')!;
    const res = await fetch(`${node1.baseUrl}/api/auth/devices/${target.uid}`, { method: 'DELETE', headers: { authorization: `Bearer ${tokenOf(writer)}` } });
    expect(res.status).toBe(200);
    expect(await watch.nextEvent(15_000)).toMatchObject({ event: 'closed', data: JSON.stringify({ reason: 'revoked' }) });
  });

  it('draining a node ends its streams with closed: shutdown', async () => {
    const watch = await stream(node2.baseUrl, tokenOf(reader));
    await watch.nextEvent();
    const exit = node2.terminate();
    expect(await watch.nextEvent(15_000)).toMatchObject({ event: 'closed', data: JSON.stringify({ reason: 'shutdown' }) });
    expect((await exit).code).toBe(0);
  });
});
