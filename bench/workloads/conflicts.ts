import type { StandInSmsGateway } from '@calsync/testkit';
import type { SyncClient } from '@calsync/client';
import { call, pullAll } from '../lib/client.js';
import { signedInDevice, type PushedItem } from '../lib/sdk-device.js';
import { newEvent } from '../lib/ids.js';
import { msSince } from '../lib/stats.js';

/** Figures of the conflict-heavy workload. */
export interface ConflictFigures {
  devices: number;
  events: number;
  seconds: number;
  roundTrips: number;
  roundTripsPerSecond: number;
  acknowledgedWrites: number;
  conflictsCreated: number;
  lostWrites: number;
  errors: number;
}

interface Ack {
  uid: string;
  baseVersion: string | null;
  version: string;
  title: string;
}

/**
 * 4 devices of one user (the SDK) edit the same 100 events with unique titles, one sync round per
 * burst of edits; the pushes and their answers are read off the wire. Afterwards every acknowledged
 * write must be accounted for: it is the row's current state, or a later write was based on its
 * version (that writer saw it), or a conflict's loser snapshot holds it (same version and title).
 */
export async function runConflicts(baseUrl: string, gateway: StandInSmsGateway, opts: { seconds: number }): Promise<ConflictFigures> {
  const phone = '+17770000001';
  const acks: Ack[] = [];
  let errors = 0;
  const record = (items: PushedItem[]): void => {
    for (const r of items) {
      if (r.status === 'error' || !r.version) errors++;
      else acks.push({ uid: r.uid, baseVersion: r.baseVersion, version: r.version, title: String(r.title) });
    }
  };
  const devices: SyncClient[] = [];
  for (let d = 0; d < 4; d++) devices.push(await signedInDevice(baseUrl, gateway, phone, `conflict-${d}`, record));
  const calendarUid = devices[0]!.calendars.list()[0]!.uid;
  const seed: string[] = [];
  for (let i = 0; i < 100; i++) {
    const { op: _op, baseVersion: _base, ...fields } = newEvent(calendarUid, i);
    seed.push(await devices[0]!.events.put({ ...fields, uid: fields.uid.replace('ev-', 'cf-') }));
  }
  await devices[0]!.sync();
  for (const device of devices) await device.sync();
  acks.length = 0;

  let roundTrips = 0;
  let counter = 0;
  const deadline = performance.now() + opts.seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    devices.map(async (device, d) => {
      while (performance.now() < deadline) {
        const picks = new Set<string>();
        const n = 1 + Math.floor(Math.random() * 5);
        while (picks.size < n) picks.add(seed[Math.floor(Math.random() * seed.length)]!);
        for (const eventUid of picks) await device.events.put({ uid: eventUid, title: `d${d}-w${++counter}` });
        try {
          await device.sync();
          roundTrips++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const seconds = msSince(t0) / 1000;

  // Account for every acknowledged write.
  const final = await pullAll(baseUrl, devices[0]!.auth.accessToken()!, undefined, 1000);
  const current = new Map<string, { version: string; title?: string }>();
  for (const page of final.pages) for (const e of page.events) current.set(e.uid, { version: e.version, title: e.title });
  const losers = new Map<string, string>(); // `${uid}@${version}` -> title
  let conflictsCreated = 0;
  let afterId = 0;
  for (;;) {
    const page = await call<{ conflicts: Array<{ conflictId: number; entityUid: string; loserSnapshot: { version: string | null; title?: string } }>; hasMore: boolean; nextAfterId: number | null }>(
      baseUrl, 'GET', `/api/sync/conflicts?afterId=${afterId}&limit=200`, { token: devices[0]!.auth.accessToken()! },
    );
    for (const c of page.conflicts) {
      conflictsCreated++;
      losers.set(`${c.entityUid}@${c.loserSnapshot.version}`, String(c.loserSnapshot.title));
    }
    if (!page.hasMore || page.nextAfterId === null) break;
    afterId = page.nextAfterId;
  }
  const seenBases = new Set(acks.map((a) => `${a.uid}@${a.baseVersion}`));
  let lostWrites = 0;
  for (const a of acks) {
    const key = `${a.uid}@${a.version}`;
    const cur = current.get(a.uid);
    const isCurrent = cur?.version === a.version && cur.title === a.title;
    const sawIt = seenBases.has(key);
    const inLoser = losers.get(key) === a.title;
    if (!isCurrent && !sawIt && !inLoser) lostWrites++;
  }
  await Promise.all(devices.map((device) => device.close()));
  return {
    devices: devices.length,
    events: seed.length,
    seconds,
    roundTrips,
    roundTripsPerSecond: roundTrips / seconds,
    acknowledgedWrites: acks.length,
    conflictsCreated,
    lostWrites,
    errors,
  };
}
