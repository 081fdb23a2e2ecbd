import fc from 'fast-check';
import {
  CursorCodec,
  RECORD_TYPES,
  SyncService,
  type FieldValue,
  type PushChangeset,
  type PushResponse,
  type RecordRow,
  type RecordType,
  type SyncApi,
} from '@calsync/domain';
import { describe, expect, it } from 'vitest';
import { isoInstantArb } from './arbitraries.js';
import { FixedClock } from './clocks.js';
import { InMemorySyncStore } from './in-memory-sync-store.js';
import { itemByItem } from './push-item-by-item.js';
import { SimulatedDevice } from './simulated-device.js';

const RUNS = Math.max(1, Number(process.env.FC_RUNS ?? '1') || 1);
const USER = 1;

/**
 * Wraps the service and checks, around every push, that no acknowledged write is lost: each
 * applied item's fields are in the row, or (upsert on a tombstone) in the loser snapshot, and every
 * server state a stale write replaced is kept as the loser snapshot.
 */
class CheckingApi implements SyncApi {
  readonly applied = new Map<string, unknown>();
  constructor(readonly svc: SyncApi, readonly store: InMemorySyncStore) {}
  pull: SyncApi['pull'] = (u, q) => this.svc.pull(u, q);
  listConflicts: SyncApi['listConflicts'] = (u, q) => this.svc.listConflicts(u, q);
  resolveConflict: SyncApi['resolveConflict'] = (u, id, a) => this.svc.resolveConflict(u, id, a);
  newestVersion: SyncApi['newestVersion'] = (u) => this.svc.newestVersion(u);

  rows(type: RecordType): Map<string, RecordRow> {
    return new Map(this.store.snapshotRows(USER, type).map((r) => [r.uid, r]));
  }

  async push(userId: number, changeset: PushChangeset): Promise<PushResponse> {
    const before = Object.fromEntries(RECORD_TYPES.map((t) => [t, this.rows(t)])) as Record<RecordType, Map<string, RecordRow>>;
    const res = await this.svc.push(userId, changeset);
    for (const type of RECORD_TYPES) {
      const after = this.rows(type);
      (changeset[type] ?? []).forEach((item, i) => {
        const result = res[type][i]!;
        if (result.status === 'error') return;
        // An item identical to one applied before (from any device of the user) gets the stored
        // result back and changes nothing; what it wrote was checked the first time.
        const key = JSON.stringify([type, item.uid, item.op, item.baseVersion, item.fields]);
        const earlier = this.applied.get(key);
        if (earlier !== undefined) {
          expect(result).toEqual(earlier);
          return;
        }
        this.applied.set(key, result);
        const prior = before[type].get(item.uid);
        if (result.uid !== item.uid) return; // merged default calendar: nothing applied, by design
        if (item.op === 'upsert' && result.status === 'created' && prior?.deleted === null) return; // server copy wins (base null)
        const row = after.get(item.uid);
        // A conflict made by this push comes back in `conflicts`; an identical item pushed before
        // (by any device of the user) returns the stored result and its earlier conflict.
        const fresh = result.status === 'conflict' ? res.conflicts.find((c) => c.conflictId === result.conflictId) : undefined;
        const conflict = result.status === 'conflict'
          ? (fresh ?? this.store.snapshotConflicts(USER).find((c) => c.conflictId === result.conflictId))
          : undefined;
        if (result.status === 'conflict') expect(conflict, 'conflict record exists').toBeDefined();
        if (item.op === 'delete') {
          expect(row === undefined || row.deleted !== null).toBe(true);
        } else if (prior?.deleted != null) {
          for (const [k, v] of Object.entries(item.fields)) expect(conflict!.loserSnapshot[k]).toEqual(v);
        } else if (row && row.version === BigInt(result.version!)) {
          for (const [k, v] of Object.entries(item.fields)) if (k !== 'isDefault') expect(row.fields[k], k).toEqual(v);
        }
        // A stale write replaced a state the client never saw: that state is the loser.
        if (fresh && prior && prior.deleted === null && type !== 'calendars') {
          expect(fresh.loserSnapshot.version).toBe(prior.version.toString());
          for (const [k, v] of Object.entries(prior.fields)) expect(fresh.loserSnapshot[k]).toEqual(v);
        }
      });
    }
    return res;
  }
}

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

function applyStep(d: SimulatedDevice, s: Step, fresh: () => string): Promise<void> | void {
  const pick = (type: RecordType): string | undefined => {
    const list = d.list(type);
    return list.length ? list[s.pick % list.length]![0] : undefined;
  };
  const end = new Date(Date.parse(s.start) + s.durationMs).toISOString();
  const edit = (type: RecordType, patch: Record<string, FieldValue>) => {
    const uid = pick(type);
    if (uid) d.upsert(type, uid, patch);
  };
  const remove = (type: RecordType) => {
    const uid = pick(type);
    if (uid) d.delete(type, uid);
  };
  switch (s.op) {
    case 'sync':
      return d.sync();
    case 'newCalendar':
      return d.upsert('calendars', fresh(), { name: s.text, color: s.flag ? '#aa00ff' : null });
    case 'newDefaultCalendar':
      return d.upsert('calendars', fresh(), { name: s.text, isDefault: true });
    case 'renameCalendar':
      return edit('calendars', { name: s.text });
    case 'makeDefault':
      return edit('calendars', { isDefault: true });
    case 'deleteCalendar':
      return remove('calendars');
    case 'newEvent': {
      const cal = pick('calendars');
      if (cal) d.upsert('events', fresh(), { calendarUid: cal, title: s.text, startTime: s.start, endTime: end, allDay: s.flag });
      return;
    }
    case 'editEvent':
      return edit('events', s.flag ? { title: s.text } : { startTime: s.start, endTime: end });
    case 'deleteEvent':
      return remove('events');
    case 'newTask':
      return d.upsert('tasks', fresh(), { title: s.text, completed: s.flag });
    case 'newSubtask': {
      const parent = pick('tasks');
      if (parent) d.upsert('tasks', fresh(), { title: s.text, parentTaskUid: parent });
      return;
    }
    case 'editTask':
      return edit('tasks', s.flag ? { completed: true, completedAt: s.start } : { title: s.text, priority: s.minutes % 10 });
    case 'deleteTask':
      return remove('tasks');
    case 'newReminder': {
      const parent = s.flag ? pick('events') : pick('tasks');
      if (parent) d.upsert('reminders', fresh(), { [s.flag ? 'eventUid' : 'taskUid']: parent, minutesBefore: s.minutes });
      return;
    }
    case 'editReminder':
      return edit('reminders', { minutesBefore: s.minutes });
    case 'deleteReminder':
      return remove('reminders');
  }
}

function serverLive(store: InMemorySyncStore, type: RecordType) {
  return Object.fromEntries(
    store.snapshotRows(USER, type).filter((r) => r.deleted === null).map((r) => [r.uid, { fields: r.fields, version: r.version.toString() }]),
  );
}

describe('N simulated devices', () => {
  it('with random offline edits, deletes and default changes, in random interleavings, converge after a final round', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 5 }), fc.array(stepArb, { minLength: 20, maxLength: 80 }), fc.boolean(), fc.integer({ min: 1, max: 500 }), async (n, steps, batch, pageSize) => {
        const store = new InMemorySyncStore();
        const engine = new SyncService({ store, clock: new FixedClock(), cursorCodec: new CursorCodec('sim') });
        // Half the runs push through the per-item oracle (each item on its own), half whole.
        const svc = batch ? engine : itemByItem(engine);
        // What verify-otp does for a new user: one default calendar with a server-made uid.
        await svc.push(USER, { calendars: [{ uid: 'server-default', op: 'upsert', baseVersion: null, fields: { name: 'Personal', isDefault: true } }] });
        const api = new CheckingApi(svc, store);
        const devices = Array.from({ length: n }, () => new SimulatedDevice(api, USER, { pageSize }));
        let counter = 0;
        for (const step of steps) {
          const i = step.device % n;
          await applyStep(devices[i]!, step as Step, () => `d${i}-${counter++}`);
        }
        // Final round: every device runs push-then-pull; a second run retries items that failed
        // only because a default calendar they reference was re-keyed in the same batch.
        for (const d of devices) await d.sync();
        for (const d of devices) await d.sync();
        for (const d of devices) await d.pull();

        const liveDefaults = store.snapshotRows(USER, 'calendars').filter((r) => r.deleted === null && r.fields.isDefault === true);
        expect(liveDefaults.length).toBeLessThanOrEqual(1);
        for (const d of devices) {
          expect(d.outbox).toEqual([]);
          for (const type of RECORD_TYPES) {
            expect(Object.fromEntries(d.records[type])).toEqual(serverLive(store, type));
          }
        }
      }),
      { numRuns: 200 * RUNS },
    );
  }, 30_000 * RUNS);
});
