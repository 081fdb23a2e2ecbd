import fc from 'fast-check';
import { RECORD_TYPES, type FieldValue, type RecordType } from '@calsync/domain/rules';
import type { Random } from '@calsync/domain';
import { cryptoRandom, isoInstantArb, propertyRuns } from '@calsync/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore, type SyncClient } from './index.js';
import { CheckingSyncApi, clientOf, FaultyFetch, signIn, startInMemoryService, type Fault, type InMemoryService } from '../test-support/index.js';

// N clients of one user (the SDK itself, over HTTP into the real app on the in-memory engine) make
// random offline edits, deletes and default-calendar changes and sync in random interleavings
// while faults are injected between them and the service. Once the faults stop they converge on
// the server's state, with no acknowledged write lost (checked around every push) and nothing
// duplicated. FC_RUNS multiplies the run count.

const RUNS = propertyRuns();
// A fresh seed each run (CI included), printed here and named by fast-check in a failure;
// FC_SEED=<n> replays one. A conflict whose two sides one device wrote is a failure (see the
// N-device property's last check).
const SEED = process.env.FC_SEED === undefined || process.env.FC_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FC_SEED);
console.log(`convergence property: seed ${SEED} (replay with FC_SEED=${SEED})`);
const FAULTS: readonly Fault[] = ['network', 'drop-response', 'duplicate', 'server-error', 'rate-limited', 'token-expired', 'crash'];

const OPS = [
  'newCalendar', 'newDefaultCalendar', 'renameCalendar', 'makeDefault', 'deleteCalendar',
  'newEvent', 'editEvent', 'deleteEvent', 'newTask', 'newSubtask', 'editTask', 'deleteTask',
  'newReminder', 'editReminder', 'deleteReminder', 'sync', 'sync', 'sync',
] as const;
type Op = (typeof OPS)[number];

const stepArb = fc.record({
  device: fc.nat(),
  op: fc.constantFrom<Op>(...OPS),
  pick: fc.nat(),
  text: fc.string({ minLength: 1, maxLength: 8 }),
  flag: fc.boolean(),
  minutes: fc.integer({ min: 0, max: 600 }),
  start: isoInstantArb,
  durationMs: fc.integer({ min: 0, max: 86_400_000 }),
});
type Step = { device: number; op: Op; pick: number; text: string; flag: boolean; minutes: number; start: string; durationMs: number };

/** Per request, a fault or none; cycled through by each device. */
const faultPlanArb = fc.array(fc.option(fc.constantFrom(...FAULTS), { freq: 2, nil: null }), { minLength: 1, maxLength: 12 });

/** One device: its durable store survives restarts; client and fetch are replaced on a crash. */
interface Device {
  readonly index: number;
  readonly store: MemoryStore;
  faulty: FaultyFetch;
  client: SyncClient;
  plan: readonly (Fault | null)[];
  requests: number;
  faultsOn: boolean;
}

const collection = (c: SyncClient, type: RecordType) => c[type];

/** Applies one local step; answers the uid of a calendar it made (not as the default) or deleted. */
async function applyLocal(d: Device, s: Step, fresh: () => string): Promise<{ madeCalendar?: string; deletedCalendar?: string } | void> {
  const c = d.client;
  const pick = (type: RecordType): string | undefined => {
    const list = collection(c, type).list();
    return list.length ? list[s.pick % list.length]!.uid : undefined;
  };
  const end = new Date(Date.parse(s.start) + s.durationMs).toISOString();
  const edit = async (type: RecordType, patch: Record<string, FieldValue>) => {
    const uid = pick(type);
    if (uid) await collection(c, type).put({ ...patch, uid });
  };
  const remove = async (type: RecordType) => {
    const uid = pick(type);
    if (uid) await collection(c, type).remove(uid);
  };
  switch (s.op) {
    case 'sync':
      return;
    case 'newCalendar': {
      const uid = fresh();
      await c.calendars.put({ uid, name: s.text, color: s.flag ? '#aa00ff' : null });
      return { madeCalendar: uid };
    }
    case 'newDefaultCalendar':
      await c.calendars.put({ uid: fresh(), name: s.text, isDefault: true });
      return;
    case 'renameCalendar':
      return edit('calendars', { name: s.text });
    case 'makeDefault':
      return edit('calendars', { isDefault: true });
    case 'deleteCalendar': {
      const uid = pick('calendars');
      await remove('calendars');
      return uid === undefined ? undefined : { deletedCalendar: uid };
    }
    case 'newEvent': {
      const cal = pick('calendars');
      // An all-day event holds dates (end exclusive), a timed one instants.
      const times = s.flag ? { startTime: s.start.slice(0, 10), endTime: new Date(Date.parse(s.start.slice(0, 10)) + 86_400_000).toISOString().slice(0, 10) } : { startTime: s.start, endTime: end };
      if (cal) await c.events.put({ uid: fresh(), calendarUid: cal, title: s.text, ...times, allDay: s.flag });
      return;
    }
    case 'editEvent':
      return edit('events', s.flag ? { title: s.text } : { startTime: s.start, endTime: end, allDay: false });
    case 'deleteEvent':
      return remove('events');
    case 'newTask':
      await c.tasks.put({ uid: fresh(), title: s.text, completed: s.flag });
      return;
    case 'newSubtask': {
      const parent = pick('tasks');
      if (parent) await c.tasks.put({ uid: fresh(), title: s.text, parentTaskUid: parent });
      return;
    }
    case 'editTask':
      return edit('tasks', s.flag ? { completed: true, completedAt: s.start } : { title: s.text, priority: s.minutes % 10 });
    case 'deleteTask':
      return remove('tasks');
    case 'newReminder': {
      const parent = s.flag ? pick('events') : pick('tasks');
      if (parent) await c.reminders.put({ uid: fresh(), [s.flag ? 'eventUid' : 'taskUid']: parent, minutesBefore: s.minutes });
      return;
    }
    case 'editReminder':
      return edit('reminders', { minutesBefore: s.minutes });
    case 'deleteReminder':
      return remove('reminders');
  }
}

let service: InMemoryService;
let checking: CheckingSyncApi | undefined;
let phones = 0;
const injected: Partial<Record<Fault | 'restart' | 'sign-in-again', number>> = {};
const count = (k: keyof typeof injected, n = 1): void => {
  injected[k] = (injected[k] ?? 0) + n;
};

/**
 * Whether the uids the server makes (the sign-up calendar's) sort before the devices' "d…" uids.
 * A device's pick is by position in its uid-sorted list, so this decides which calendar "the
 * first" is. Each run draws it, so its seed replays it: a CSPRNG uid alone once made a CI seed
 * find its failure only in some replays.
 */
let serverUidsFirst = true;
const orderedRandom: Random = { ...cryptoRandom, uuid: () => (serverUidsFirst ? '0' : 'f') + cryptoRandom.uuid().slice(1) };

beforeAll(async () => {
  service = await startInMemoryService({
    wrapSync: (sync, store) => (checking = new CheckingSyncApi(sync, store)),
    random: orderedRandom,
  });
}, 60_000);
afterAll(async () => {
  await service.close();
  console.log(`convergence property: faults injected ${JSON.stringify(injected)}; pushes checked ${JSON.stringify(checking?.counts)}`);
});

function newFaulty(d: Pick<Device, 'plan' | 'requests' | 'faultsOn'> & { requests: number }): FaultyFetch {
  const device = d as Device;
  return new FaultyFetch(service.fetch, () => {
    if (!device.faultsOn) return null;
    const fault = device.plan[device.requests % device.plan.length] ?? null;
    device.requests += 1;
    return fault;
  });
}

async function makeDevice(index: number, phone: string, plan: readonly (Fault | null)[]): Promise<Device> {
  const partial = { index, store: new MemoryStore(), plan, requests: 0, faultsOn: false } as Device;
  partial.faulty = newFaulty(partial);
  partial.client = await clientOf(service, { store: partial.store, fetch: partial.faulty.fetch, maxAttempts: 5 });
  await signIn(service, partial.client, phone);
  return partial;
}

/** One sync under faults; a crash replaces the client by a new one opened on the same store. */
async function syncUnderFaults(d: Device, phone: string): Promise<void> {
  d.faultsOn = true;
  const outcome = await Promise.race([d.client.sync().then(() => 'ok', () => 'failed'), d.faulty.crash.then(() => 'crash')]);
  d.faultsOn = false;
  for (const [k, v] of Object.entries(d.faulty.injected)) count(k as Fault, v);
  if (outcome === 'crash') {
    count('restart');
    d.faulty = newFaulty(d);
    d.client = await clientOf(service, { store: d.store, fetch: d.faulty.fetch, maxAttempts: 5 });
  } else {
    // Keep counting from zero on the same fetch.
    for (const k of Object.keys(d.faulty.injected)) delete d.faulty.injected[k as Fault];
  }
  if (!d.client.status.signedIn) {
    // A lost or duplicated refresh answer ends the session (replay detection): sign in again;
    // the unsent writes stay on the device and go out after the bootstrap.
    count('sign-in-again');
    await signIn(service, d.client, phone);
  }
}

/** A sync with the faults stopped; a session that a lost refresh answer ended is found out here too. */
async function settle(d: Device, phone: string): Promise<void> {
  try {
    await d.client.sync();
  } catch (error) {
    if ((error as { kind?: string }).kind !== 'signed-out') throw error;
    count('sign-in-again');
    await signIn(service, d.client, phone);
    await d.client.sync();
  }
}

const view = (c: SyncClient, type: RecordType) => Object.fromEntries(collection(c, type).list().map((r) => [r.uid, r]));
function serverView(userId: number, type: RecordType) {
  return Object.fromEntries(
    service.syncStore
      .snapshotRows(userId, type)
      .filter((r) => r.deleted === null)
      .map((r) => [r.uid, { ...r.fields, uid: r.uid, version: r.version.toString() }]),
  );
}

/**
 * A run that hangs (a sync that never ends) is a failure, reported and shrunk like any other: each
 * run gets 20 s. Shrinking a hang costs 20 s a candidate, so the whole property stops at
 * PROPERTY_MS, well inside the test's own timeout, and reports the smallest counterexample found so
 * far with its seed and path; a property cut off before its runs were done fails too.
 */
const RUN_MS = 20_000;
const PROPERTY_MS = 420_000 * RUNS;
const TEST_MS = 600_000 * RUNS;
const limits = { timeout: RUN_MS, plugins: [fc.interruptAfterTimeLimit(PROPERTY_MS, { failOnInterrupt: true })] };

/** A step of a recorded counterexample: only the device, the operation and its pick matter to it. */
const recorded = (device: number, op: Op, pick = 0): Step => ({ device, op, pick, text: ' ', flag: false, minutes: 0, start: '2020-01-01T00:00:00.000Z', durationMs: 0 });

/**
 * Seed 1706862950, run 4136 of 10,000 (FC_RUNS=100): three devices; device 1 makes calendars and a
 * new default, its first push is answered and then lost to a crash (the server merged the new
 * default into the existing one); device 0 deletes that existing default. Device 1's re-push,
 * answered from the merge's receipt after its pull had brought the deletion, made the deleted
 * default again on device 1 alone, at its old version, where no later pull could correct it.
 * (Device 0 deletes the first calendar it lists, by uid: the server's default, as the server's
 * uids sort first here. When that was left to a random uid, this example found the bug in about 13
 * runs of 16.)
 */
const MERGED_INTO_A_DELETED_DEFAULT: [number, Step[], (Fault | null)[][], boolean] = [
  3,
  [
    recorded(757422538, 'newCalendar'), recorded(17608330, 'newDefaultCalendar'), recorded(0, 'newCalendar'), recorded(0, 'deleteCalendar'),
    recorded(601527217, 'sync'), recorded(0, 'newCalendar'), recorded(0, 'newCalendar'), recorded(0, 'newCalendar'),
    recorded(881277682, 'makeDefault', 498768931), recorded(0, 'newCalendar'), recorded(0, 'newCalendar'), recorded(817271173, 'newDefaultCalendar'),
  ],
  [[null], ['crash', null], [null], [null]],
  true,
];

describe('N clients with faults', () => {
  it('converge after the faults stop, no acknowledged write lost, nothing duplicated', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 4 }),
        fc.array(stepArb, { minLength: 10, maxLength: 50 }),
        fc.array(faultPlanArb, { minLength: 4, maxLength: 4 }),
        fc.boolean(),
        async (n, steps, plans, uidsFirst) => {
        serverUidsFirst = uidsFirst;
        const phone = `+1777${String(++phones).padStart(7, '0')}`;
        const devices: Device[] = [];
        for (let i = 0; i < n; i++) devices.push(await makeDevice(i, phone, plans[i]!));
        let counter = 0;
        const made = new Set<string>();
        const deleted = new Set<string>();
        for (const step of steps) {
          const d = devices[step.device % n]!;
          if (step.op === 'sync') await syncUnderFaults(d, phone);
          else {
            const { madeCalendar, deletedCalendar } = (await applyLocal(d, step as Step, () => `d${d.index}-${counter++}`)) ?? {};
            if (madeCalendar) made.add(madeCalendar);
            if (deletedCalendar) deleted.add(deletedCalendar);
          }
        }
        // Faults stop: every device runs rounds until nothing is left to push.
        for (let round = 0; round < 4; round++) for (const d of devices) await settle(d, phone);

        const userId = devices[0]!.client.auth.user()!.id;
        const liveDefaults = service.syncStore.snapshotRows(userId, 'calendars').filter((r) => r.deleted === null && r.fields.isDefault === true);
        expect(liveDefaults.length).toBeLessThanOrEqual(1); // the user may delete the default calendar
        // A calendar made as an ordinary one keeps its uid, made the default or not: only a create
        // as the default is merged into the user's existing one (a promotion of a calendar whose
        // create had not left yet was once sent as such a create, and the calendar was gone).
        const rows = new Set(service.syncStore.snapshotRows(userId, 'calendars').map((r) => r.uid));
        expect([...made].filter((uid) => !deleted.has(uid) && !rows.has(uid))).toEqual([]);
        for (const d of devices) {
          expect(d.client.status).toMatchObject({ pending: 0, signedIn: true });
          // A create made here under a parent another device deleted is parked, never dropped:
          // every failed item is one, which the server never had.
          const failed = d.client.outbox.failed();
          expect(failed).toHaveLength(d.client.status.failed);
          for (const f of failed) {
            expect(f).toMatchObject({ op: 'upsert', error: { code: 'UNKNOWN_REFERENCE', retryable: false } });
            expect(f.error?.message).toContain('was deleted on another device');
            expect(service.syncStore.snapshotRows(userId, f.type).some((r) => r.uid === f.uid)).toBe(false);
          }
          for (const type of RECORD_TYPES) expect(view(d.client, type)).toEqual(serverView(userId, type));
        }
        // No device ends in a conflict with its own earlier write: both sides of every conflict
        // were written by different devices.
        const selfConflicts = service.syncStore.snapshotConflicts(userId).filter((c) => {
          const parties = checking!.conflictParties.get(c.conflictId);
          return parties?.winner !== undefined && parties.winner === parties.loser;
        });
        expect(selfConflicts).toEqual([]);
      }),
      { numRuns: 100 * RUNS, seed: SEED, examples: [MERGED_INTO_A_DELETED_DEFAULT], ...limits },
    );
  }, TEST_MS);

  it('one device under faults: every re-push and duplicated request is answered from its receipt, so no conflict and no extra record', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 5, maxLength: 40 }), faultPlanArb, async (steps, plan) => {
        const phone = `+1888${String(++phones).padStart(7, '0')}`;
        const d = await makeDevice(0, phone, plan);
        let counter = 0;
        for (const step of steps) {
          if (step.op === 'sync') await syncUnderFaults(d, phone);
          else await applyLocal(d, step as Step, () => `solo-${counter++}`);
        }
        await settle(d, phone);
        await settle(d, phone);
        const userId = d.client.auth.user()!.id;
        expect(d.client.status).toMatchObject({ pending: 0, failed: 0 });
        // Not even for a default calendar merged into the server's one whose answer was lost (a
        // crash) before the device deleted the server's default and edited its own (seed
        // 1644898669): the device makes its calendar anew (planRekey).
        expect(service.syncStore.snapshotConflicts(userId)).toEqual([]);
        for (const type of RECORD_TYPES) expect(view(d.client, type)).toEqual(serverView(userId, type));
      }),
      { numRuns: 100 * RUNS, seed: SEED, ...limits },
    );
  }, TEST_MS);
});
