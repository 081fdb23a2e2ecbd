import type { SyncClient } from '@calsync/client';
import { openEventStream, startStandInFcm, startStandInSmsGateway, until, type OpenedStream, type StandInFcm, type StandInSmsGateway } from '@calsync/testkit';
import type { PushResponseWire } from '@calsync/wire';
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleValue } from './lib/metrics-text.js';
import { createScratchDatabase, type ScratchDatabase } from './lib/scratch-database.js';
import { RealServerProcess } from './lib/server-process.js';
import { signedInPhone } from './lib/devices.js';
import { standInFcmEnv, testServerEnv } from './lib/test-server.js';

// Reminders and conflict alerts through the real server processes. On PostgreSQL two app nodes
// share one database: whichever holds the scheduler's lease sends, and a stream on the other node
// hears it; killing the scheduling node with SIGKILL hands the lease to the other within seconds.
// On embedded PGlite the single-node path. FCM goes to the local stand-in.

interface Kind {
  readonly name: string;
  readonly twoNodes: boolean;
  readonly make: () => Promise<ScratchDatabase>;
}
// CI has PostgreSQL; without it the one-node PGlite run still checks delivery (the contract suite
// checks the alert fan-out on PGlite's own feed).
const serverUrl = process.env.TEST_DATABASE_URL;
const kinds: Kind[] = serverUrl
  ? [{ name: 'PostgreSQL (two nodes)', twoNodes: true, make: () => createScratchDatabase(serverUrl) }]
  : [{ name: 'PGlite (one node)', twoNodes: false, make: async () => ({ url: 'pglite://memory', drop: async () => {} }) }];

const LEASE_MS = 2000;
/** Most a reminder may be late while the service runs (the bound). */
const MAX_LATE_MS = 5000;
/** Reminders beyond the four kinds, due in the same seconds. */
const EXTRA = 24;

/** An event heard on a stream, with the time it arrived. */
interface Heard {
  readonly event: string;
  readonly data: Record<string, unknown>;
  readonly at: number;
}

/** Reads every event of a stream in the background. */
function listen(stream: OpenedStream): Heard[] {
  const heard: Heard[] = [];
  void (async () => {
    for (;;) {
      try {
        const e = await stream.nextEvent(3_600_000);
        heard.push({ event: e.event, data: JSON.parse(e.data) as Record<string, unknown>, at: Date.now() });
      } catch {
        return;
      }
    }
  })();
  return heard;
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

describe.each(kinds)('reminders and conflict alerts on $name', ({ twoNodes, make }) => {
  let sms: StandInSmsGateway;
  let fcm: StandInFcm;
  let database: ScratchDatabase;
  let nodes: RealServerProcess[] = [];
  const clients: SyncClient[] = [];
  const streams: OpenedStream[] = [];
  const lateness: number[] = [];
  const phone = `+1555${String(randomInt(1_000_000, 9_999_999))}`;

  const client = async (base: string, name: string, fcmToken: string): Promise<SyncClient> => {
    const c = await signedInPhone(base, phone, sms, name, fcmToken);
    clients.push(c);
    return c;
  };
  const tokenOf = (c: SyncClient): string => (c.auth as unknown as { accessToken(): string }).accessToken();
  const stream = async (base: string, c: SyncClient): Promise<Heard[]> => {
    const s = await openEventStream(`${base}/api/sync/stream`, { authorization: `Bearer ${tokenOf(c)}` });
    expect(s.status).toBe(200);
    streams.push(s);
    const heard = listen(s);
    await until(() => heard.some((h) => h.event === 'ready'), { ms: 10_000, what: 'ready' });
    return heard;
  };
  const push = async (base: string, c: SyncClient, body: Record<string, unknown[]>): Promise<PushResponseWire> => {
    const res = await fetch(`${base}/api/sync/push`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokenOf(c)}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const data = ((await res.json()) as { data: PushResponseWire }).data;
    for (const r of [...data.calendars, ...data.events, ...data.tasks, ...data.reminders]) expect(r.status, JSON.stringify(r)).not.toBe('error');
    return data;
  };
  /** The version the first task result of a push answer gave (the push checked it is no error). */
  const taskVersion = (answer: PushResponseWire): string => {
    const r = answer.tasks[0]!;
    if (r.status === 'error' || r.version === null) throw new Error(JSON.stringify(r));
    return r.version;
  };
  const leaderOf = async (): Promise<RealServerProcess | null> => {
    for (const n of nodes) {
      if (!n.running) continue;
      const metrics = await (await fetch(`${n.baseUrl}/metrics`)).text();
      if (sampleValue(metrics, 'calsync_reminder_scheduler_leader') === 1) return n;
    }
    return null;
  };
  const iso = (ms: number): string => new Date(ms).toISOString();
  const reminders = (heard: Heard[]) => heard.filter((h) => h.event === 'reminder');

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
      REMINDER_POLL_MS: '250',
      REMINDER_LEASE_MS: String(LEASE_MS),
    };
    nodes = twoNodes ? [new RealServerProcess(env), new RealServerProcess(env)] : [new RealServerProcess(env)];
    await Promise.all(nodes.map((n) => n.start()));
    writer = await client(nodes[0]!.baseUrl, 'writer', 'fcm-writer');
    reader = await client(nodes[nodes.length - 1]!.baseUrl, 'reader', 'fcm-reader');
    await until(async () => (await leaderOf()) !== null, { ms: 15_000, what: 'a node to take the scheduler lease' });
  }, 180_000);

  afterAll(async () => {
    if (lateness.length > 0) {
      const sorted = [...lateness].sort((a, b) => a - b);
      console.info(`[reminders e2e] lateness at the receiving stream over ${sorted.length} reminders: p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms, max ${sorted[sorted.length - 1]} ms`);
    }
    for (const s of streams) s.close();
    for (const c of clients) await c.close().catch(() => undefined);
    for (const n of nodes) if (n.running) await n.terminate();
    await fcm?.close();
    await sms?.close();
    await database?.drop();
  }, 60_000);

  it('reminders due in the next minute (one-off, series occurrence, remindAt, task dueAt) reach a stream on the other node once each, at most 5 s late, and FCM once per device', async () => {
    const leader = (await leaderOf())!;
    const other = nodes.find((n) => n !== leader) ?? leader;
    const heard = await stream(other.baseUrl, reader);
    const base = Math.ceil(Date.now() / 1000) * 1000;
    const minute = 60_000;
    await push(nodes[0]!.baseUrl, writer, {
      calendars: [{ uid: 'cal', op: 'upsert', baseVersion: null, name: 'Work', timezone: 'Europe/Berlin' }],
      events: [
        { uid: 'one-off', op: 'upsert', baseVersion: null, calendarUid: 'cal', title: 'One-off', startTime: iso(base + 6_000 + minute), endTime: iso(base + 2 * minute) },
        { uid: 'series', op: 'upsert', baseVersion: null, calendarUid: 'cal', title: 'Daily', startTime: iso(base + 8_000), endTime: iso(base + 38_000), rrule: 'FREQ=DAILY;COUNT=5' },
      ],
      tasks: [
        { uid: 'task', op: 'upsert', baseVersion: null, title: 'Due task', dueAt: iso(base + 10_000 + 2 * minute) },
        { uid: 'note', op: 'upsert', baseVersion: null, title: 'Note' },
      ],
      reminders: [
        { uid: 'r-one-off', op: 'upsert', baseVersion: null, eventUid: 'one-off', minutesBefore: 1 },
        { uid: 'r-series', op: 'upsert', baseVersion: null, eventUid: 'series', minutesBefore: 0 },
        { uid: 'r-task', op: 'upsert', baseVersion: null, taskUid: 'task', minutesBefore: 2 },
        { uid: 'r-at', op: 'upsert', baseVersion: null, taskUid: 'note', remindAt: iso(base + 4_000) },
        // More reminders spread over the same seconds, for a lateness distribution.
        ...Array.from({ length: EXTRA }, (_, i) => ({ uid: `r-extra-${i}`, op: 'upsert', baseVersion: null, taskUid: 'note', remindAt: iso(base + 4_250 + i * 250) })),
      ],
    });
    await until(() => reminders(heard).length >= 4 + EXTRA, { ms: 40_000, what: 'every reminder' });
    // Anything sent twice would arrive within a few poll intervals.
    await new Promise((r) => setTimeout(r, 2000));
    const all = reminders(heard);
    const uids = all.map((h) => String(h.data.reminderUid));
    expect(new Set(uids).size).toBe(uids.length);
    expect(uids).toHaveLength(4 + EXTRA);
    const got = all.filter((h) => !String(h.data.reminderUid).startsWith('r-extra-'));
    expect(got.map((h) => h.data.reminderUid)).toEqual(['r-at', 'r-one-off', 'r-series', 'r-task']);
    expect(got[1]!.data).toEqual({ reminderUid: 'r-one-off', eventUid: 'one-off', occurrenceStart: iso(base + 6_000 + minute), title: 'One-off', start: iso(base + 6_000 + minute), dueAt: iso(base + 6_000) });
    expect(got[2]!.data).toMatchObject({ eventUid: 'series', occurrenceStart: iso(base + 8_000), dueAt: iso(base + 8_000) });
    expect(got[3]!.data).toMatchObject({ taskUid: 'task', start: iso(base + 10_000 + 2 * minute), dueAt: iso(base + 10_000) });
    for (const h of all) {
      const late = h.at - Date.parse(String(h.data.dueAt));
      lateness.push(late);
      expect(late).toBeLessThanOrEqual(MAX_LATE_MS);
    }
    await until(() => fcm.delivered.filter((m) => m.data.type === 'reminder').length >= 2 * (4 + EXTRA), { ms: 10_000, what: 'the FCM reminders' });
    const visible = fcm.delivered.filter((m) => m.data.type === 'reminder');
    expect(visible).toHaveLength(2 * (4 + EXTRA));
    expect(new Set(visible.map((m) => `${m.token} ${m.data.reminderUid}`)).size).toBe(visible.length);
    expect(fcm.rejected).toEqual([]);
    expect(visible.filter((m) => !m.data.reminderUid!.startsWith('r-extra-')).map((m) => `${m.token} ${m.data.reminderUid}`).sort()).toEqual(
      ['fcm-reader', 'fcm-writer'].flatMap((t) => ['r-at', 'r-one-off', 'r-series', 'r-task'].map((r) => `${t} ${r}`)).sort(),
    );
    expect(visible.every((m) => typeof (m.message.notification as { title?: string }).title === 'string')).toBe(true);
  });

  if (twoNodes) {
    it('killing the scheduling node with SIGKILL just before a due time still delivers the reminder exactly once', async () => {
      const leader = (await leaderOf())!;
      const survivor = nodes.find((n) => n !== leader)!;
      // Writer and reader streams on the survivor (the writer's client is bound to node 1, its token works on both).
      const heard = await stream(survivor.baseUrl, reader);
      const due = Date.now() + 4000;
      await push(survivor.baseUrl, writer, {
        tasks: [{ uid: 'kill-note', op: 'upsert', baseVersion: null, title: 'Across a crash' }],
        reminders: [{ uid: 'r-kill', op: 'upsert', baseVersion: null, taskUid: 'kill-note', remindAt: iso(due) }],
      });
      const fcmBefore = fcm.delivered.length;
      await new Promise((r) => setTimeout(r, due - Date.now() - 500));
      const killedAt = Date.now();
      expect((await leader.kill()).signal).toBe('SIGKILL');
      await until(async () => (await leaderOf()) === survivor, { ms: 15_000, what: 'the survivor to take the lease' });
      const failoverMs = Date.now() - killedAt;
      await until(() => reminders(heard).some((h) => h.data.reminderUid === 'r-kill'), { ms: 15_000, what: 'the reminder after the crash' });
      await new Promise((r) => setTimeout(r, 2000));
      const got = reminders(heard).filter((h) => h.data.reminderUid === 'r-kill');
      expect(got).toHaveLength(1);
      const late = got[0]!.at - due;
      console.info(`[reminders e2e] fail-over: the survivor held the lease ${failoverMs} ms after SIGKILL; the reminder arrived ${late} ms after its due time`);
      await until(() => fcm.delivered.length - fcmBefore >= 2, { ms: 10_000, what: 'FCM after the crash' });
      await new Promise((r) => setTimeout(r, 1000));
      expect(fcm.delivered.slice(fcmBefore).filter((m) => m.data.reminderUid === 'r-kill').map((m) => m.token).sort()).toEqual(['fcm-reader', 'fcm-writer']);
    });
  }

  it('a conflict made by one device alerts the user\'s other device (stream and FCM) but not itself, unless conflictAlerts is off', async () => {
    const node = nodes.find((n) => n.running)!;
    const readerHeard = await stream(node.baseUrl, reader);
    const writerHeard = await stream(node.baseUrl, writer);
    const made = await push(node.baseUrl, writer, { tasks: [{ uid: 'contested', op: 'upsert', baseVersion: null, title: 'v1' }] });
    const v1 = taskVersion(made);
    await push(node.baseUrl, reader, { tasks: [{ uid: 'contested', op: 'upsert', baseVersion: v1, title: 'reader' }] });
    const fcmBefore = fcm.delivered.length;
    const clash = await push(node.baseUrl, writer, { tasks: [{ uid: 'contested', op: 'upsert', baseVersion: v1, title: 'writer' }] });
    expect(clash.conflicts).toHaveLength(1);
    const conflict = clash.conflicts[0] as { conflictId: number; entityType: string; entityUid: string };
    await until(() => readerHeard.some((h) => h.event === 'conflict'), { ms: 10_000, what: 'the conflict alert' });
    expect(readerHeard.filter((h) => h.event === 'conflict').map((h) => h.data)).toEqual([{ conflictId: conflict.conflictId, entityType: conflict.entityType, entityUid: 'contested' }]);
    await until(() => fcm.delivered.slice(fcmBefore).some((m) => m.data.type === 'conflict'), { ms: 10_000, what: 'the FCM conflict alert' });
    expect(fcm.delivered.slice(fcmBefore).filter((m) => m.data.type === 'conflict').map((m) => m.token)).toEqual(['fcm-reader']);
    expect(writerHeard.filter((h) => h.event === 'conflict')).toEqual([]);

    const off = await fetch(`${node.baseUrl}/api/users/me`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${tokenOf(reader)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ notificationSettings: { conflictAlerts: false } }),
    });
    expect(off.status).toBe(200);
    const now = await push(node.baseUrl, reader, { tasks: [{ uid: 'contested', op: 'upsert', baseVersion: taskVersion(clash), title: 'again' }] });
    const again = await push(node.baseUrl, writer, { tasks: [{ uid: 'contested', op: 'upsert', baseVersion: taskVersion(clash), title: 'clash again' }] });
    expect(now.tasks[0]!.status).toBe('updated');
    expect(again.conflicts).toHaveLength(1);
    // The first alert arrived well within this; a second one would too.
    await new Promise((r) => setTimeout(r, 2000));
    expect(readerHeard.filter((h) => h.event === 'conflict')).toHaveLength(1);
  });
});
