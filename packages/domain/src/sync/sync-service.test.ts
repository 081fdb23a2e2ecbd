import { FixedClock, InMemorySyncStore, itemByItem } from '@calsync/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { CursorCodec } from '../cursor/cursor-codec.js';
import { DomainError } from '../errors.js';
import type { RecordType } from '../records/types.js';
import { SyncService } from './sync-service.js';
import type { PushChangeset, PushItem, SyncApi } from './types.js';

const U = 1;
const T0 = '2024-05-01T10:00:00.000Z';
const T1 = '2024-05-01T11:00:00.000Z';

/** 'whole': each push as one call; 'item by item': the per-item oracle, every item pushed on its own. */
let currentMode: 'whole' | 'item by item' = 'whole';
function setup(): { store: InMemorySyncStore; svc: SyncApi } {
  const store = new InMemorySyncStore();
  const engine = new SyncService({ store, clock: new FixedClock(), cursorCodec: new CursorCodec('k') });
  return { store, svc: currentMode === 'whole' ? engine : itemByItem(engine) };
}
const up = (uid: string, fields: Record<string, unknown> = {}, baseVersion: string | null = null): PushItem => ({ uid, op: 'upsert', baseVersion, fields });
const del = (uid: string, baseVersion: string | null = null): PushItem => ({ uid, op: 'delete', baseVersion, fields: {} });
const cal = (uid: string, extra: Record<string, unknown> = {}) => up(uid, { name: `cal ${uid}`, ...extra });
const ev = (uid: string, calendarUid: string, extra: Record<string, unknown> = {}) =>
  up(uid, { calendarUid, title: `ev ${uid}`, startTime: T0, endTime: T1, ...extra });
const task = (uid: string, extra: Record<string, unknown> = {}) => up(uid, { title: `task ${uid}`, ...extra });

type Svc = ReturnType<typeof setup>['svc'];
async function one(svc: Svc, type: RecordType, item: PushItem, user = U) {
  const res = await svc.push(user, { [type]: [item] } as PushChangeset);
  return { result: res[type][0]!, conflicts: res.conflicts };
}
const row = (store: InMemorySyncStore, type: RecordType, uid: string, user = U) => store.snapshotRows(user, type).find((r) => r.uid === uid);

describe.each(['whole', 'item by item'] as const)('push %s', (mode) => {
  beforeAll(() => {
    currentMode = mode;
  });

  describe('record state table', () => {
    it('absent + upsert → created with a new version and id', async () => {
      const { svc, store } = setup();
      const { result } = await one(svc, 'calendars', cal('c1', { color: '#112233' }));
      expect(result).toEqual({ uid: 'c1', status: 'created', id: 1, version: '1' });
      expect(row(store, 'calendars', 'c1')?.fields).toEqual({ name: 'cal c1', color: '#112233', timezone: null, isDefault: false });
    });

    it('absent + upsert of a default calendar while one exists → the existing default, no new row', async () => {
      const { svc, store } = setup();
      const first = await one(svc, 'calendars', cal('home', { isDefault: true }));
      const { result } = await one(svc, 'calendars', cal('mine', { isDefault: true, name: 'Other' }));
      expect(result).toEqual({ uid: 'home', status: 'created', id: (first.result as { id: number }).id, version: '1' });
      expect(store.snapshotRows(U, 'calendars').map((r) => r.uid)).toEqual(['home']);
      expect(row(store, 'calendars', 'home')?.fields.name).toBe('cal home');
      expect(store.lastVersion).toBe(1n);
    });

    it('absent + delete → deleted with version null, nothing changes', async () => {
      const { svc, store } = setup();
      const { result } = await one(svc, 'events', del('nope', '4'));
      expect(result).toEqual({ uid: 'nope', status: 'deleted', version: null });
      expect(store.lastVersion).toBe(0n);
    });

    it('live + upsert with baseVersion null → created with the current version, fields discarded', async () => {
      const { svc, store } = setup();
      await one(svc, 'calendars', cal('c1'));
      const { result } = await one(svc, 'calendars', cal('c1', { name: 'changed' }));
      expect(result).toEqual({ uid: 'c1', status: 'created', id: 1, version: '1' });
      expect(row(store, 'calendars', 'c1')?.fields.name).toBe('cal c1');
    });

    it('live + clean upsert → updated with a new version', async () => {
      const { svc, store } = setup();
      await one(svc, 'calendars', cal('c1'));
      const { result, conflicts } = await one(svc, 'calendars', up('c1', { name: 'renamed', color: null }, '1'));
      expect(result).toMatchObject({ uid: 'c1', status: 'updated', version: '2' });
      expect(conflicts).toEqual([]);
      expect(row(store, 'calendars', 'c1')?.fields.name).toBe('renamed');
    });

    it('live + stale upsert → conflict; the client write wins and the replaced row is the loser', async () => {
      const { svc, store } = setup();
      await one(svc, 'calendars', cal('c1'));
      await one(svc, 'calendars', up('c1', { name: 'second' }, '1'));
      const { result, conflicts } = await one(svc, 'calendars', up('c1', { color: '#000000' }, '1'));
      expect(result).toEqual({ uid: 'c1', status: 'conflict', id: 1, version: '3', conflictId: 1 });
      expect(row(store, 'calendars', 'c1')?.fields).toMatchObject({ name: 'second', color: '#000000' });
      expect(conflicts).toEqual([
        {
          conflictId: 1, entityType: 'CALENDAR', entityUid: 'c1', winnerVersion: '3',
          loserSnapshot: { uid: 'c1', id: 1, version: '2', name: 'second', color: null, timezone: null, isDefault: false, deleted: null, createdAt: expect.any(String), updatedAt: expect.any(String) },
          createdAt: expect.any(String), resolvedAt: null,
        },
      ]);
    });

    it('live + clean delete → tombstone with a new version', async () => {
      const { svc, store } = setup();
      await one(svc, 'tasks', task('t1'));
      const { result } = await one(svc, 'tasks', del('t1', '1'));
      expect(result).toMatchObject({ uid: 't1', status: 'deleted', version: '2' });
      expect(row(store, 'tasks', 't1')?.deleted).not.toBeNull();
    });

    it('live + stale delete → conflict, tombstone, the pre-delete row is the loser', async () => {
      const { svc, store } = setup();
      await one(svc, 'tasks', task('t1'));
      await one(svc, 'tasks', up('t1', { notes: 'n' }, '1'));
      const { result, conflicts } = await one(svc, 'tasks', del('t1', '1'));
      expect(result).toMatchObject({ status: 'conflict', version: '3', conflictId: 1 });
      expect(row(store, 'tasks', 't1')?.deleted).not.toBeNull();
      expect(conflicts[0]).toMatchObject({ entityType: 'TASK', winnerVersion: '3', loserSnapshot: { uid: 't1', version: '2', notes: 'n', deleted: null } });
    });

    it('tombstone + upsert → conflict with the tombstone version; the edit over the tombstone is the loser', async () => {
      const { svc, store } = setup();
      await one(svc, 'tasks', task('t1', { notes: 'keep' }));
      await one(svc, 'tasks', del('t1', '1'));
      const { result, conflicts } = await one(svc, 'tasks', up('t1', { title: 'edited' }, '1'));
      expect(result).toEqual({ uid: 't1', status: 'conflict', id: 1, version: '2', conflictId: 1 });
      expect(conflicts[0]).toMatchObject({ winnerVersion: '2', loserSnapshot: { uid: 't1', version: '1', title: 'edited', notes: 'keep' } });
      expect(row(store, 'tasks', 't1')).toMatchObject({ version: 2n, fields: { title: 'task t1' } });
      expect(store.lastVersion).toBe(2n);
    });

    it('tombstone + delete → deleted with the tombstone version, no change', async () => {
      const { svc, store } = setup();
      await one(svc, 'tasks', task('t1'));
      await one(svc, 'tasks', del('t1', '1'));
      const { result } = await one(svc, 'tasks', del('t1', '1'));
      expect(result).toMatchObject({ status: 'deleted', version: '2' });
      expect(store.lastVersion).toBe(2n);
    });
  });

  describe('per-item errors', () => {
    it.each([
      ['events', up('e1', { title: 'x', startTime: T0, endTime: T1 }), 'CALENDAR_REQUIRED', 'calendarUid required for create'],
      ['reminders', up('r1', { minutesBefore: 5 }), 'PARENT_REQUIRED', 'eventUid or taskUid required for create'],
      ['events', ev('e1', 'ghost'), 'UNKNOWN_REFERENCE', 'unknown calendarUid'],
      ['reminders', up('r1', { eventUid: 'ghost' }), 'UNKNOWN_REFERENCE', 'unknown eventUid'],
      ['reminders', up('r1', { taskUid: 'ghost' }), 'UNKNOWN_REFERENCE', 'unknown taskUid'],
      ['tasks', task('t1', { parentTaskUid: 'ghost' }), 'UNKNOWN_REFERENCE', 'unknown parentTaskUid'],
    ] as const)('%s %o → %s', async (type, item, code, message) => {
      const { svc, store } = setup();
      const { result } = await one(svc, type, item);
      expect(result).toEqual({ uid: item.uid, status: 'error', error: { code, message, retryable: code === 'UNKNOWN_REFERENCE' } });
      expect(store.lastVersion).toBe(0n);
    });

    it('validation errors leave everything unchanged', async () => {
      const { svc, store } = setup();
      await svc.push(U, { calendars: [cal('c')], events: [ev('e', 'c')], tasks: [task('t')] });
      const before = store.lastVersion;
      const bad: [RecordType, PushItem, string][] = [
        ['events', up('e', { rrule: 'FREQ=SOMETIMES' }, '2'), 'INVALID_RRULE'],
        ['events', up('e', { exdate: 'yesterday' }, '2'), 'INVALID_EXDATE'],
        ['events', up('e', { endTime: '2024-04-01T00:00:00Z' }, '2'), 'INVALID_FIELD'],
        ['reminders', up('r', { eventUid: 'e', taskUid: 't' }), 'INVALID_FIELD'],
        ['tasks', up('t2', {}), 'INVALID_FIELD'],
        ['tasks', up('t', { parentTaskUid: 't' }, '3'), 'INVALID_FIELD'],
        ['tasks', up('t9', { title: 'new', parentTaskUid: 't9' }), 'INVALID_FIELD'],
        ['reminders', up('r', { eventUid: 'e', minutesBefore: 5, remindAt: '2024-01-01T00:00:00Z' }), 'INVALID_FIELD'],
        ['calendars', up('c', { shade: 'blue' }, '1'), 'INVALID_FIELD'],
      ];
      for (const [type, item, code] of bad) {
        const { result } = await one(svc, type, item);
        expect(result, JSON.stringify(item)).toMatchObject({ status: 'error', error: { code, retryable: false } });
      }
      expect(store.lastVersion).toBe(before);
      expect(store.snapshotRows(U, 'reminders')).toEqual([]);
    });

    it('a task may not become its own ancestor', async () => {
      const { svc } = setup();
      await svc.push(U, { tasks: [task('a'), task('b', { parentTaskUid: 'a' }), task('c', { parentTaskUid: 'b' })] });
      const { result } = await one(svc, 'tasks', up('a', { parentTaskUid: 'c' }, '1'));
      expect(result).toMatchObject({ status: 'error', error: { code: 'INVALID_FIELD' } });
    });

    it('an item that failed is evaluated afresh: a retry after the parent arrives succeeds', async () => {
      const { svc } = setup();
      const item = ev('e1', 'c1');
      expect((await one(svc, 'events', item)).result.status).toBe('error');
      await one(svc, 'calendars', cal('c1'));
      expect((await one(svc, 'events', item)).result).toMatchObject({ status: 'created', version: '2' });
    });

    it('a parent earlier in the same batch resolves references; a subtask before its parent fails', async () => {
      const { svc } = setup();
      const res = await svc.push(U, {
        calendars: [cal('c1')],
        events: [ev('e1', 'c1')],
        tasks: [task('sub', { parentTaskUid: 'top' }), task('top')],
        reminders: [up('r1', { eventUid: 'e1', minutesBefore: 5 })],
      });
      expect(res.events[0]!.status).toBe('created');
      expect(res.tasks.map((r) => r.status)).toEqual(['error', 'created']);
      expect(res.reminders[0]!.status).toBe('created');
    });
  });

  describe('cascades', () => {
    it('deleting a calendar tombstones its events and their reminders, each with its own version', async () => {
      const { svc, store } = setup();
      await svc.push(U, {
        calendars: [cal('c1'), cal('c2')],
        events: [ev('e1', 'c1'), ev('e2', 'c1'), ev('e3', 'c2')],
        reminders: [up('r1', { eventUid: 'e1' }), up('r3', { eventUid: 'e3' })],
      });
      const { result } = await one(svc, 'calendars', del('c1', '1'));
      expect(result).toMatchObject({ status: 'deleted', version: '8' });
      const dead = (type: RecordType) => store.snapshotRows(U, type).filter((r) => r.deleted !== null).map((r) => [r.uid, r.version]);
      expect(dead('events')).toEqual([['e1', 9n], ['e2', 10n]]);
      expect(dead('reminders')).toEqual([['r1', 11n]]);
      expect(store.lastVersion).toBe(11n);
    });

    it('deleting a task tombstones its subtasks recursively and their reminders', async () => {
      const { svc, store } = setup();
      await svc.push(U, {
        tasks: [task('a'), task('b', { parentTaskUid: 'a' }), task('c', { parentTaskUid: 'b' }), task('x')],
        reminders: [up('rc', { taskUid: 'c' }), up('rx', { taskUid: 'x' })],
      });
      await one(svc, 'tasks', del('a', '1'));
      const dead = store.snapshotRows(U, 'tasks').filter((r) => r.deleted).map((r) => r.uid);
      expect(dead.sort()).toEqual(['a', 'b', 'c']);
      expect(store.snapshotRows(U, 'reminders').filter((r) => r.deleted).map((r) => r.uid)).toEqual(['rc']);
    });
  });

  describe('default calendar', () => {
    it('making a calendar default demotes the others first, each with a new version', async () => {
      const { svc, store } = setup();
      await svc.push(U, { calendars: [cal('a', { isDefault: true }), cal('b')] });
      const { result } = await one(svc, 'calendars', up('b', { isDefault: true }, '2'));
      expect(result).toMatchObject({ status: 'updated', version: '4' });
      expect(row(store, 'calendars', 'a')).toMatchObject({ version: 3n, fields: { isDefault: false } });
      expect(row(store, 'calendars', 'b')?.fields.isDefault).toBe(true);
    });
  });

  describe('idempotency', () => {
    it('replaying an applied push returns the original results and changes nothing', async () => {
      const { svc, store } = setup();
      await svc.push(U, { calendars: [cal('c')] });
      const changes: PushChangeset = { calendars: [up('c', { name: 'x' }, '0')], tasks: [task('t'), del('gone')] };
      const first = await svc.push(U, changes);
      const version = store.lastVersion;
      const conflicts = store.snapshotConflicts(U).length;
      const again = await svc.push(U, changes);
      expect(again.calendars).toEqual(first.calendars);
      expect(again.tasks).toEqual(first.tasks);
      expect(again.conflicts).toEqual([]);
      expect(store.lastVersion).toBe(version);
      expect(store.snapshotConflicts(U)).toHaveLength(conflicts);
    });
  });

  describe('pull', () => {
    it('pages through changes in version order with hasMore and a signed cursor', async () => {
      const { svc } = setup();
      await svc.push(U, { calendars: [cal('c1'), cal('c2'), cal('c3')], tasks: [task('t1')] });
      const p1 = await svc.pull(U, { limit: 2 });
      expect(p1).toMatchObject({ cursorReset: true, hasMore: true });
      expect(p1.calendars.map((r) => r.uid)).toEqual(['c1', 'c2']);
      expect(p1.tasks.map((r) => r.version)).toEqual(['4']);
      const p2 = await svc.pull(U, { cursor: p1.nextCursor, limit: 2 });
      expect(p2).toMatchObject({ cursorReset: false, hasMore: false });
      expect(p2.calendars.map((r) => r.uid)).toEqual(['c3']);
      expect(p2.tasks).toEqual([]);
      const p3 = await svc.pull(U, { cursor: p2.nextCursor });
      expect([...p3.calendars, ...p3.tasks]).toEqual([]);
      await one(svc, 'calendars', del('c1', '1'));
      const p4 = await svc.pull(U, { cursor: p3.nextCursor });
      expect(p4.calendars).toMatchObject([{ uid: 'c1', version: '5', deleted: expect.any(String) }]);
    });

    it('a tampered cursor is a reset to a full snapshot; the limit is clamped to 1..1000', async () => {
      const { svc } = setup();
      await svc.push(U, { calendars: [cal('c1'), cal('c2')] });
      const p = await svc.pull(U, {});
      const [body, sig] = p.nextCursor.split('.') as [string, string];
      const flipped = `${sig.slice(0, 5)}${sig[5] === 'A' ? 'B' : 'A'}${sig.slice(6)}`;
      const tampered = await svc.pull(U, { cursor: `${body}.${flipped}` });
      expect(tampered.cursorReset).toBe(true);
      expect(tampered.calendars).toHaveLength(2);
      const one = await svc.pull(U, { limit: 0 });
      expect(one.calendars).toHaveLength(1);
      expect(one.hasMore).toBe(true);
      expect((await svc.pull(U, { limit: 5000 })).calendars).toHaveLength(2);
      expect((await svc.pull(U, { limit: -1e20 })).calendars).toHaveLength(1);
      expect((await svc.pull(U, { limit: 1e20 })).calendars).toHaveLength(2);
      expect((await svc.pull(U, { limit: 1.5 })).calendars).toHaveLength(1);
    });

    it('never shows another user\'s rows; a foreign cursor is a reset', async () => {
      const { svc } = setup();
      await one(svc, 'calendars', cal('same'), 1);
      await one(svc, 'calendars', cal('same', { name: 'two' }), 2);
      const p = await svc.pull(2, {});
      expect(p.calendars.map((r) => r.name)).toEqual(['two']);
      const foreign = await svc.pull(1, { cursor: p.nextCursor });
      expect(foreign.cursorReset).toBe(true);
      expect(foreign.calendars.map((r) => r.name)).toEqual(['cal same']);
    });
  });

  describe('moves between calendars', () => {
    const evAt = (uid: string, calendarUid: string, baseVersion: string, extra: Record<string, unknown> = {}) =>
      up(uid, { calendarUid, title: `ev ${uid}`, startTime: T0, endTime: T1, ...extra }, baseVersion);
    const departures = async (store: InMemorySyncStore, calendarUid: string) =>
      (await store.readObjects(U, { calendarUid })).departures.map((d) => [d.uid, d.version]);

    it('an event moved to another calendar departs from the one it left at the move; its overrides, other fields and new rows leave none', async () => {
      const { svc, store } = setup();
      await svc.push(U, { calendars: [cal('home'), cal('work')], events: [ev('e', 'home', { rrule: 'FREQ=DAILY;COUNT=3' }), ev('f', 'home')] });
      await svc.push(U, { events: [ev('e-x', 'home', { recurringEventUid: 'e', originalStartTime: T0 })] });
      await one(svc, 'events', evAt('f', 'home', '4', { title: 'renamed' }));
      await one(svc, 'events', evAt('e-x', 'work', '5', { recurringEventUid: 'e', originalStartTime: T0 }));
      expect([await departures(store, 'home'), await departures(store, 'work')]).toEqual([[], []]);
      const { result } = await one(svc, 'events', evAt('e', 'work', '3', { rrule: 'FREQ=DAILY;COUNT=3' }));
      expect(await departures(store, 'home')).toEqual([['e', BigInt((result as { version: string }).version)]]);
      expect(await departures(store, 'work')).toEqual([]);
    });

    it("a series moved to another calendar takes its overrides along, and an override made for it elsewhere is put in the series' calendar", async () => {
      const { svc, store } = setup();
      await svc.push(U, { calendars: [cal('home'), cal('work')], events: [ev('s', 'home', { rrule: 'FREQ=DAILY;COUNT=5' })] });
      await svc.push(U, { events: [ev('s-x', 'home', { recurringEventUid: 's', originalStartTime: '2024-05-02T10:00:00.000Z', title: 'moved one' })] });
      const { result } = await one(svc, 'events', evAt('s', 'work', '3', { rrule: 'FREQ=DAILY;COUNT=5' }));
      expect(result).toMatchObject({ status: 'updated' });
      expect(row(store, 'events', 's-x')?.fields.calendarUid).toBe('work');
      // The series is not a departure's only trace: no override is left in the calendar it left.
      expect((await store.readObjects(U, { calendarUid: 'home' })).overrides).toEqual([]);
      const seen = await svc.occurrences(U, { from: '2024-05-01T00:00:00Z', to: '2024-05-06T00:00:00Z', calendarUids: ['home'] });
      expect(seen.occurrences).toEqual([]);
      // A device that had not seen the move makes an override in the old calendar: it joins its series.
      await one(svc, 'events', ev('s-y', 'home', { recurringEventUid: 's', originalStartTime: '2024-05-03T10:00:00.000Z', title: 'from afar' }));
      expect(row(store, 'events', 's-y')?.fields.calendarUid).toBe('work');
      // Deleting the old calendar leaves the series and both overrides alone.
      await one(svc, 'calendars', del('home', '1'));
      expect(['s', 's-x', 's-y'].map((uid) => row(store, 'events', uid)?.deleted)).toEqual([null, null, null]);
    });

    it('a stale edit that moves an event back, and the restore of what it overwrote, each leave the departure of that write', async () => {
      const { svc, store } = setup();
      await svc.push(U, { calendars: [cal('home'), cal('work')], events: [ev('e', 'home')] });
      await one(svc, 'events', evAt('e', 'work', '3')); // moved to work: v4
      expect(await departures(store, 'home')).toEqual([['e', 4n]]);
      // An offline edit from before the move arrives: it wins, so the event is home again (v5) and the move is the loser.
      const { result } = await one(svc, 'events', evAt('e', 'home', '3', { title: 'offline edit' }));
      expect(row(store, 'events', 'e')?.fields.calendarUid).toBe('home');
      expect([await departures(store, 'home'), await departures(store, 'work')]).toEqual([[], [['e', 5n]]]);
      const restored = await svc.resolveConflict(U, (result as { conflictId: number }).conflictId, 'restore');
      expect(row(store, 'events', 'e')?.fields.calendarUid).toBe('work');
      expect([await departures(store, 'home'), await departures(store, 'work')]).toEqual([[['e', BigInt(restored.record!.version)]], []]);
    });
  });

  describe('edits past a split', () => {
    it('an override and a cancellation pushed for a series past its split move to the series that continues it, and the override keeps its uid', async () => {
      const { svc, store } = setup();
      const weekly = { title: 'Gym', startTime: '2026-07-06T16:00:00.000Z', endTime: '2026-07-06T17:00:00.000Z', timezone: 'Europe/Berlin', rrule: 'FREQ=WEEKLY' };
      await svc.push(U, { calendars: [cal('home')], events: [up('s', { calendarUid: 'home', ...weekly })] });
      // One device splits on 20 July, an hour later: the new series first, then the old one's end.
      await svc.push(U, {
        events: [
          up('n', { calendarUid: 'home', ...weekly, title: 'Gym (new place)', startTime: '2026-07-20T17:00:00.000Z', endTime: '2026-07-20T18:00:00.000Z', splitFromUid: 's', splitFromStart: '2026-07-20T16:00:00.000Z' }),
          up('s', { rrule: 'FREQ=WEEKLY;UNTIL=20260713T160000Z' }, '2'),
        ],
      });
      // The other device, which saw version 2, cancels 27 July and renames 3 August.
      const pushed = await svc.push(U, {
        events: [
          up('s', { exdate: '2026-07-27T16:00:00.000Z' }, '2'),
          up('o', { calendarUid: 'home', title: 'Gym with Sam', startTime: '2026-08-03T16:00:00.000Z', endTime: '2026-08-03T17:00:00.000Z', recurringEventUid: 's', originalStartTime: '2026-08-03T16:00:00.000Z' }),
        ],
      });
      expect(pushed.events.map((r) => r.status)).toEqual(['conflict', 'created']);
      expect(row(store, 'events', 's')?.fields).toMatchObject({ rrule: 'FREQ=WEEKLY;UNTIL=20260713T160000Z', exdate: null });
      expect(row(store, 'events', 'n')?.fields.exdate).toBe('2026-07-27T17:00:00.000Z');
      expect(row(store, 'events', 'o')?.fields).toMatchObject({ recurringEventUid: 'n', originalStartTime: '2026-08-03T17:00:00.000Z', startTime: '2026-08-03T17:00:00.000Z', endTime: '2026-08-03T18:00:00.000Z', title: 'Gym with Sam' });
      const seen = await svc.occurrences(U, { from: '2026-07-13T00:00:00Z', to: '2026-08-11T00:00:00Z' });
      expect(seen.occurrences.map((o) => [o.start, o.title])).toEqual([
        ['2026-07-13T16:00:00.000Z', 'Gym'],
        ['2026-07-20T17:00:00.000Z', 'Gym (new place)'],
        ['2026-08-03T17:00:00.000Z', 'Gym with Sam'],
        ['2026-08-10T17:00:00.000Z', 'Gym (new place)'],
      ]);
    });

    it('a series split from another names both the series and the occurrence, and an override names neither', async () => {
      const { svc } = setup();
      await svc.push(U, { calendars: [cal('home')], events: [up('s', { calendarUid: 'home', title: 'A', startTime: T0, endTime: T1, rrule: 'FREQ=DAILY' })] });
      const { result } = await one(svc, 'events', ev('n', 'home', { rrule: 'FREQ=DAILY', splitFromUid: 's' }));
      expect(result).toMatchObject({ status: 'error', error: { code: 'INVALID_FIELD' } });
      const override = await one(svc, 'events', ev('o', 'home', { recurringEventUid: 's', originalStartTime: T0, splitFromUid: 's', splitFromStart: T0 }));
      expect(override.result).toMatchObject({ status: 'error', error: { code: 'INVALID_FIELD' } });
    });
  });

  describe('edits across an "all events" move', () => {
    it('a cancellation and an override made before the move, pushed after it, follow it; so does an override pushed before it', async () => {
      const { svc, store } = setup();
      const weekly = { title: 'Gym', startTime: '2026-07-06T16:00:00.000Z', endTime: '2026-07-06T17:00:00.000Z', timezone: 'Europe/Berlin', rrule: 'FREQ=WEEKLY', exdate: '2026-07-13T16:00:00.000Z' };
      await svc.push(U, { calendars: [cal('home')], events: [up('s', { calendarUid: 'home', ...weekly })] });
      // A device that has not seen the move overrides 10 August first.
      await svc.push(U, { events: [up('a', { calendarUid: 'home', title: 'Gym with Ada', startTime: '2026-08-10T16:00:00.000Z', endTime: '2026-08-10T17:00:00.000Z', recurringEventUid: 's', originalStartTime: '2026-08-10T16:00:00.000Z' })] });
      // One device moves all events an hour later (18:00 to 19:00 in Berlin), as the SDK plans it.
      await svc.push(U, { events: [up('s', { startTime: '2026-07-06T17:00:00.000Z', endTime: '2026-07-06T18:00:00.000Z', exdate: '2026-07-13T17:00:00.000Z', moves: '2026-07-06T16:00:00.000Z/2026-07-06T17:00:00.000Z' }, '2')] });
      // It sat at its occurrence's time, so it moves with it.
      expect(row(store, 'events', 'a')?.fields).toMatchObject({ originalStartTime: '2026-08-10T17:00:00.000Z', startTime: '2026-08-10T17:00:00.000Z', title: 'Gym with Ada' });
      // The other device, which saw version 2, cancels 27 July (its exdate, whole) and renames 3 August.
      const pushed = await svc.push(U, {
        events: [
          up('s', { exdate: '2026-07-13T16:00:00.000Z,2026-07-27T16:00:00.000Z' }, '2'),
          up('o', { calendarUid: 'home', title: 'Gym with Sam', startTime: '2026-08-03T16:00:00.000Z', endTime: '2026-08-03T17:00:00.000Z', recurringEventUid: 's', originalStartTime: '2026-08-03T16:00:00.000Z' }),
        ],
      });
      expect(pushed.events.map((r) => r.status)).toEqual(['conflict', 'created']);
      expect(row(store, 'events', 's')?.fields.exdate).toBe('2026-07-13T17:00:00.000Z,2026-07-27T17:00:00.000Z');
      expect(row(store, 'events', 'o')?.fields).toMatchObject({ originalStartTime: '2026-08-03T17:00:00.000Z', startTime: '2026-08-03T17:00:00.000Z', endTime: '2026-08-03T18:00:00.000Z' });
      const seen = await svc.occurrences(U, { from: '2026-07-06T00:00:00Z', to: '2026-08-18T00:00:00Z' });
      expect(seen.occurrences.map((o) => [o.start, o.title])).toEqual([
        ['2026-07-06T17:00:00.000Z', 'Gym'],
        ['2026-07-20T17:00:00.000Z', 'Gym'],
        ['2026-08-03T17:00:00.000Z', 'Gym with Sam'],
        ['2026-08-10T17:00:00.000Z', 'Gym with Ada'],
        ['2026-08-17T17:00:00.000Z', 'Gym'],
      ]);
    });

    it('moves are a series\' own, given as from/to pairs', async () => {
      const { svc } = setup();
      await svc.push(U, { calendars: [cal('home')], events: [up('s', { calendarUid: 'home', title: 'A', startTime: T0, endTime: T1, rrule: 'FREQ=DAILY' })] });
      const override = await one(svc, 'events', ev('o', 'home', { recurringEventUid: 's', originalStartTime: T0, moves: `${T0}/${T1}` }));
      expect(override.result).toMatchObject({ status: 'error', error: { code: 'INVALID_FIELD' } });
      const unpaired = await one(svc, 'events', ev('n', 'home', { rrule: 'FREQ=DAILY', moves: T0 }));
      expect(unpaired.result).toMatchObject({ status: 'error', error: { code: 'INVALID_FIELD', message: expect.stringContaining('moves') } });
    });
  });

  describe('conflicts', () => {
    async function withConflicts(n: number) {
      const ctx = setup();
      await ctx.svc.push(U, { tasks: Array.from({ length: n }, (_, i) => task(`t${i}`)) });
      for (let i = 0; i < n; i++) await one(ctx.svc, 'tasks', up(`t${i}`, { notes: 'mine' }, '999'));
      return ctx;
    }

    it('lists unresolved conflicts paged by id', async () => {
      const { svc } = await withConflicts(3);
      const a = await svc.listConflicts(U, { limit: 2 });
      expect(a.conflicts.map((c) => c.conflictId)).toEqual([1, 2]);
      expect(a).toMatchObject({ hasMore: true, nextAfterId: 2 });
      const b = await svc.listConflicts(U, { afterId: 2, limit: 500 });
      expect(b).toMatchObject({ hasMore: false, nextAfterId: null });
      expect(b.conflicts.map((c) => c.conflictId)).toEqual([3]);
      expect((await svc.listConflicts(2, {})).conflicts).toEqual([]);
      // Limits are clamped here, the one place: limit into 1..200, afterId into 0..2^53-1.
      expect((await svc.listConflicts(U, { limit: -1e20 })).conflicts.map((c) => c.conflictId)).toEqual([1]);
      expect((await svc.listConflicts(U, { afterId: -7, limit: 1e20 })).conflicts.map((c) => c.conflictId)).toEqual([1, 2, 3]);
      expect(await svc.listConflicts(U, { afterId: 1e20 })).toEqual({ conflicts: [], hasMore: false, nextAfterId: null });
    });

    it('restore puts the loser back with a new version; dismiss keeps the winner', async () => {
      const { svc, store } = await withConflicts(2);
      const restored = await svc.resolveConflict(U, 1, 'restore');
      expect(restored.record).toEqual({ entityType: 'TASK', uid: 't0', version: '5' });
      expect(restored.conflict.resolvedAt).not.toBeNull();
      expect(row(store, 'tasks', 't0')?.fields.notes).toBeNull();
      const dismissed = await svc.resolveConflict(U, 2, 'dismiss');
      expect(dismissed.record).toBeNull();
      expect(row(store, 'tasks', 't1')?.fields.notes).toBe('mine');
      expect(store.lastVersion).toBe(5n);
      expect((await svc.listConflicts(U, {})).conflicts).toEqual([]);
      await expect(svc.resolveConflict(U, 1, 'dismiss')).rejects.toMatchObject({ code: 'CONFLICT_RESOLVED' });
      await expect(svc.resolveConflict(U, 99, 'dismiss')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('another user cannot see or resolve the conflict', async () => {
      const { svc } = await withConflicts(1);
      await expect(svc.resolveConflict(2, 1, 'restore')).rejects.toBeInstanceOf(DomainError);
      await expect(svc.resolveConflict(2, 1, 'restore')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('restore clears a tombstone and brings back the edit', async () => {
      const { svc, store } = setup();
      await one(svc, 'tasks', task('t'));
      await one(svc, 'tasks', del('t', '1'));
      const { result } = await one(svc, 'tasks', up('t', { title: 'back' }, '1'));
      const res = await svc.resolveConflict(U, (result as { conflictId: number }).conflictId, 'restore');
      expect(res.record?.version).toBe('3');
      expect(row(store, 'tasks', 't')).toMatchObject({ deleted: null, fields: { title: 'back' } });
    });

    it('restore of a default calendar demotes the current default', async () => {
      const { svc, store } = setup();
      await svc.push(U, { calendars: [cal('a', { isDefault: true }), cal('b')] });
      await one(svc, 'calendars', up('b', { isDefault: true }, '2')); // a demoted (v3), b default (v4)
      await one(svc, 'calendars', del('a', '1')); // stale delete of a → conflict; loser is a (not default)
      await one(svc, 'calendars', up('b', { isDefault: false, name: 'B' }, '1')); // stale → loser b default v4
      const conflicts = (await svc.listConflicts(U, {})).conflicts;
      const bConflict = conflicts.find((c) => c.entityUid === 'b')!;
      await one(svc, 'calendars', cal('c', { isDefault: true }));
      await svc.resolveConflict(U, bConflict.conflictId, 'restore');
      const defaults = store.snapshotRows(U, 'calendars').filter((r) => r.deleted === null && r.fields.isDefault).map((r) => r.uid);
      expect(defaults).toEqual(['b']);
    });

    it('restore of a record whose parent is gone is UNKNOWN_REFERENCE', async () => {
      const { svc } = setup();
      await svc.push(U, { calendars: [cal('c')], events: [ev('e', 'c')] });
      await one(svc, 'events', del('e', '1')); // stale delete → conflict, loser references c
      await one(svc, 'calendars', del('c', '1'));
      const [conflict] = (await svc.listConflicts(U, {})).conflicts;
      await expect(svc.resolveConflict(U, conflict!.conflictId, 'restore')).rejects.toMatchObject({ code: 'UNKNOWN_REFERENCE', message: 'unknown calendarUid' });
      expect((await svc.listConflicts(U, {})).conflicts).toHaveLength(1);
    });
  });
});

describe('occurrence reads kept per window', () => {
  it("answer from the kept read only while the user's newest version is unchanged, also when another node wrote", async () => {
    const store = new InMemorySyncStore();
    const node1 = new SyncService({ store, clock: new FixedClock(), cursorCodec: new CursorCodec('k') });
    const node2 = new SyncService({ store, clock: new FixedClock(), cursorCodec: new CursorCodec('k') });
    const window = { from: '2024-05-01T00:00:00.000Z', to: '2024-06-01T00:00:00.000Z', tz: 'UTC' };
    const titles = async () => (await node1.occurrences(U, window)).occurrences.map((o) => `${o.title} ${o.start}`);
    await node1.push(U, { calendars: [cal('c', { timezone: 'UTC' })], events: [ev('weekly', 'c', { rrule: 'FREQ=WEEKLY;COUNT=2' })] });
    expect(await titles()).toEqual(['ev weekly 2024-05-01T10:00:00.000Z', 'ev weekly 2024-05-08T10:00:00.000Z']);
    expect(await titles()).toEqual(['ev weekly 2024-05-01T10:00:00.000Z', 'ev weekly 2024-05-08T10:00:00.000Z']);
    // Another node edits the series, adds an event, then the calendar's zone: each shows at once.
    const version = (await node2.pull(U, { limit: 100 })).events.find((e) => e.uid === 'weekly')!.version!;
    await node2.push(U, { events: [up('weekly', { title: 'moved', rrule: 'FREQ=WEEKLY;COUNT=1' }, version), ev('once', 'c', { startTime: '2024-05-20T08:00:00.000Z', endTime: '2024-05-20T09:00:00.000Z' })] });
    expect(await titles()).toEqual(['moved 2024-05-01T10:00:00.000Z', 'ev once 2024-05-20T08:00:00.000Z']);
    await node2.push(U, { events: [del('once', (await node2.pull(U, { limit: 100 })).events.find((e) => e.uid === 'once')!.version)] });
    expect(await titles()).toEqual(['moved 2024-05-01T10:00:00.000Z']);
  });

  it('answer the same frozen page for the same window, zone and calendars while nothing changed, and a page of its own for another zone or calendar', async () => {
    const store = new InMemorySyncStore();
    const svc = new SyncService({ store, clock: new FixedClock(), cursorCodec: new CursorCodec('k') });
    await svc.push(U, { calendars: [cal('c', { timezone: 'UTC' }), cal('d')], events: [ev('weekly', 'c', { rrule: 'FREQ=WEEKLY;COUNT=2' })] });
    const window = { from: '2024-05-01T00:00:00.000Z', to: '2024-06-01T00:00:00.000Z', tz: 'UTC' };
    const page = await svc.occurrences(U, window);
    expect(await svc.occurrences(U, { ...window })).toBe(page);
    expect(Object.isFrozen(page) && Object.isFrozen(page.occurrences) && page.occurrences.every((o) => Object.isFrozen(o))).toBe(true);
    const tokyo = await svc.occurrences(U, { ...window, tz: 'Asia/Tokyo' });
    const onlyD = await svc.occurrences(U, { ...window, calendarUids: ['d'] });
    expect([tokyo === page, onlyD === page, onlyD.occurrences.length]).toEqual([false, false, 0]);
    expect(await svc.occurrences(U, { ...window, calendarUids: ['d'] })).toBe(onlyD);
    await svc.push(U, { events: [ev('once', 'c', { startTime: '2024-05-20T08:00:00.000Z', endTime: '2024-05-20T09:00:00.000Z' })] });
    const after = await svc.occurrences(U, window);
    expect(after).not.toBe(page);
    expect(after.occurrences).toHaveLength(3);
  });
});
