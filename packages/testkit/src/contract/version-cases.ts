import { describe, expect, it } from 'vitest';
import { RECORD_TYPES, encodeWireRecord, perRecordType, type EncodedChanges, type WireRecord } from '@calsync/domain';
import { T1, T2, boundOf, deferred, insertRows, insertsOf, newRow, nextVersions, noUids, pause, sampleFields, type MakeStore, type StoreHarness } from './fixtures.js';

/** Global sequence and change-feed cases. */
export function versionCases(harness: () => StoreHarness, makeStore: MakeStore): void {
  describe('versions and changes', () => {
    it('a fresh store reports the bound 0 until a version is issued', async () => {
      const fresh = await makeStore();
      try {
        const user = await fresh.createUser();
        expect(await fresh.store.inUserTransaction(user, (uow) => boundOf(uow))).toBe(0n);
        const [first] = await fresh.store.inUserTransaction(user, (uow) => nextVersions(uow, 1));
        expect(first! > 0n).toBe(true);
        expect(await fresh.store.inUserTransaction(user, (uow) => boundOf(uow))).toBe(first);
      } finally {
        await fresh.close();
      }
    });

    it('versions strictly increase across calls, record types and users; the read bound is the last issued', async () => {
      const { store, createUser } = harness();
      const [a, b] = [await createUser(), await createUser()];
      const issued: bigint[] = [];
      for (const user of [a, b, a, b]) {
        const batch = await store.inUserTransaction(user, async (uow) => {
          const versions = await nextVersions(uow, 3);
          expect(await boundOf(uow)).toBe(versions[2]);
          return versions;
        });
        issued.push(...batch);
      }
      expect(await store.inUserTransaction(a, (uow) => nextVersions(uow, 0))).toEqual([]);
      for (let i = 1; i < issued.length; i++) expect(issued[i]! > issued[i - 1]!).toBe(true);
      const rows = await insertRows(store, a, RECORD_TYPES.map((type, i) => ({ type, uid: `seq-${i}`, fields: sampleFields(type, { calendarUid: 'seq-0', eventUid: 'seq-1' }) })));
      expect(rows[0]!.version > issued.at(-1)!).toBe(true);
      for (let i = 1; i < rows.length; i++) expect(rows[i]!.version > rows[i - 1]!.version).toBe(true);
      expect(await store.inUserTransaction(b, (uow) => boundOf(uow))).toBe(rows.at(-1)!.version);
    });

    it('reserve draws versions, row ids per type and conflict ids: ascending, of the asked lengths, never twice, a rolled-back unit\'s included', async () => {
      const { store, createUser } = harness();
      const [a, b] = [await createUser(), await createUser()];
      const ask = { versions: 2, rowIds: { calendars: 1, events: 3, reminders: 2 }, conflictIds: 2 };
      const first = await store.inUserTransaction(a, (uow) => uow.reserve(ask));
      let rolledBack: Awaited<typeof first> | undefined;
      await expect(
        store.inUserTransaction(b, async (uow) => {
          rolledBack = await uow.reserve(ask);
          throw new Error('rollback');
        }),
      ).rejects.toThrow('rollback');
      const third = await store.inUserTransaction(a, (uow) => uow.reserve(ask));
      const draws = [first, rolledBack!, third];
      for (const d of draws) {
        expect(d.versions).toHaveLength(2);
        expect(d.conflictIds).toHaveLength(2);
        expect(Object.fromEntries(RECORD_TYPES.map((t) => [t, d.rowIds[t].length]))).toEqual({ calendars: 1, events: 3, tasks: 0, reminders: 2 });
      }
      const ascending = <N extends number | bigint>(list: N[]): boolean => list.every((v, i) => i === 0 || v > list[i - 1]!);
      expect(ascending(draws.flatMap((d) => d.versions))).toBe(true);
      expect(ascending(draws.flatMap((d) => d.conflictIds))).toBe(true);
      for (const type of RECORD_TYPES) expect(ascending(draws.flatMap((d) => d.rowIds[type]))).toBe(true);
      // Ids drawn are ids the store's own inserts never reuse.
      const [row] = await insertRows(store, a, [{ type: 'calendars', uid: 'rs-after', fields: sampleFields('calendars') }]);
      expect(row!.id > third.rowIds.calendars.at(-1)!).toBe(true);
      expect(await store.inUserTransaction(a, (uow) => uow.reserve({}))).toEqual({ versions: [], rowIds: perRecordType(() => []), conflictIds: [] });
    });

    it('what prefetch draws ahead answers a later reserve: versions still strictly increase across the calls of a unit and the next unit, ids never repeat', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      const calls = await store.inUserTransaction(user, async (uow) => {
        await uow.prefetch(noUids(), [], { versions: 3, rowIds: { events: 2 }, conflictIds: 1 });
        const covered = await uow.reserve({ versions: 1, rowIds: { events: 1 } });
        const rest = await uow.reserve({ versions: 2, rowIds: { events: 1 }, conflictIds: 1 });
        const beyond = await uow.reserve({ versions: 2, rowIds: { events: 1 }, conflictIds: 1 });
        const afterBeyond = await uow.reserve({ versions: 1 });
        await uow.prefetch(noUids(), [], { versions: 2 });
        const secondAhead = await uow.reserve({ versions: 2, rowIds: { tasks: 1 } });
        return [covered, rest, beyond, afterBeyond, secondAhead];
      });
      const next = await store.inUserTransaction(user, (uow) => uow.reserve({ versions: 1, rowIds: { events: 1, tasks: 1 }, conflictIds: 1 }));
      const draws = [...calls, next];
      expect(draws.map((d) => d.versions.length)).toEqual([1, 2, 2, 1, 2, 1]);
      expect(draws.map((d) => d.rowIds.events.length)).toEqual([1, 1, 1, 0, 0, 1]);
      expect(draws.map((d) => d.rowIds.tasks.length)).toEqual([0, 0, 0, 0, 1, 1]);
      expect(draws.map((d) => d.conflictIds.length)).toEqual([0, 1, 1, 0, 0, 1]);
      const ascending = <N extends number | bigint>(list: N[]): boolean => list.every((v, i) => i === 0 || v > list[i - 1]!);
      expect(ascending(draws.flatMap((d) => d.versions))).toBe(true);
      expect(ascending(draws.flatMap((d) => d.conflictIds))).toBe(true);
      for (const type of RECORD_TYPES) expect(ascending(draws.flatMap((d) => d.rowIds[type]))).toBe(true);
    });

    it('readChangesSince reads each type after its watermark up to the bound, by version, limited, tombstones included, per user', async () => {
      const { store, createUser } = harness();
      const [user, other] = [await createUser(), await createUser()];
      const rows = await insertRows(store, user, [
        { type: 'tasks', uid: 'rc-1', fields: sampleFields('tasks') },
        { type: 'calendars', uid: 'rc-cal', fields: sampleFields('calendars') },
        { type: 'tasks', uid: 'rc-2', fields: sampleFields('tasks'), deleted: T2 },
        { type: 'tasks', uid: 'rc-3', fields: sampleFields('tasks') },
        { type: 'tasks', uid: 'rc-4', fields: sampleFields('tasks') },
      ]);
      await insertRows(store, other, [{ type: 'tasks', uid: 'rc-2', fields: sampleFields('tasks') }]);
      const v = rows.map((r) => r.version);
      const zero = perRecordType(() => 0n);
      await store.inUserTransaction(user, async (uow) => {
        const top = await boundOf(uow);
        const uids = async (watermarks: Partial<typeof zero>, limit: number) => {
          const read = await uow.readChangesSince({ ...zero, ...watermarks }, limit);
          expect(read.bound).toBe(top);
          return Object.fromEntries(RECORD_TYPES.map((t) => [t, wireOf(read.rows[t]).map((r) => r.uid)]));
        };
        const only = (some: Partial<Record<string, string[]>>) => ({ ...perRecordType((): string[] => []), ...some });
        expect(await uids({}, 100)).toEqual(only({ calendars: ['rc-cal'], tasks: ['rc-1', 'rc-2', 'rc-3', 'rc-4'] }));
        expect(await uids({ tasks: v[0]!, calendars: v[1]! }, 100)).toEqual(only({ tasks: ['rc-2', 'rc-3', 'rc-4'] }));
        expect(await uids({ tasks: v[0]! }, 2)).toEqual(only({ calendars: ['rc-cal'], tasks: ['rc-2', 'rc-3'] }));
        const page = await uow.readChangesSince({ ...zero, tasks: v[0]! }, 2);
        expect([page.rows.tasks.lastVersion, page.rows.tasks.more, page.rows.calendars.more, page.rows.events.lastVersion]).toEqual([v[3], true, false, null]);
        expect((await uow.readChangesSince({ ...zero, tasks: v[0]! }, 3)).rows.tasks.more).toBe(false);
        expect(await uids({ tasks: v[4]!, calendars: top + 5n }, 100)).toEqual(only({}));
        expect(await uids({}, 0)).toEqual(only({}));
        const tomb = (await uow.readChangesSince({ ...zero, tasks: v[0]! }, 1)).rows.tasks;
        expect(tomb).toEqual({ lastVersion: rows[2]!.version, more: true, wire: [encodeWireRecord(rows[2]!)] });
      });
      await store.inUserTransaction(other, async (uow) => {
        const theirs = (await uow.readChangesSince(zero, 100)).rows.tasks;
        // The user's own rc-2 is a tombstone: a live one is the other user's.
        expect(wireOf(theirs).map((r) => [r.uid, r.deleted])).toEqual([['rc-2', null]]);
      });
    });

    it('the store\'s readChangesSince answers what a unit\'s does, under the user\'s lock: it waits for a unit holding it and reads what that unit wrote', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      await insertRows(store, user, [{ type: 'tasks', uid: 'sr-1', fields: sampleFields('tasks') }]);
      const zero = perRecordType(() => 0n);
      const inUnit = await store.inUserTransaction(user, (uow) => uow.readChangesSince(zero, 100));
      expect(await store.readChangesSince(user, zero, 100)).toEqual(inUnit);
      expect(await store.readChangesSince(user, { ...zero, tasks: inUnit.bound }, 100)).toEqual(await store.inUserTransaction(user, (uow) => uow.readChangesSince({ ...zero, tasks: inUnit.bound }, 100)));
      const holding = deferred();
      const gate = deferred();
      const holder = store.inUserTransaction(user, async (uow) => {
        const [version] = await nextVersions(uow, 1); // the lock is held from here
        await uow.applyWrites(await insertsOf(uow, [newRow('tasks', user, 'sr-2', version!, sampleFields('tasks'))]));
        holding.resolve();
        await gate.promise;
        return version!;
      });
      await holding.promise;
      let answered = false;
      const read = store.readChangesSince(user, zero, 100).then((r) => ((answered = true), r));
      await pause(50);
      expect(answered).toBe(false);
      gate.resolve();
      const written = await holder;
      const after = await read;
      expect(after.bound).toBe(written);
      expect(wireOf(after.rows.tasks).map((r) => r.uid)).toEqual(['sr-1', 'sr-2']);
      // It left nothing open: the next unit of the user runs and sees the same bound.
      expect(await store.inUserTransaction(user, (uow) => boundOf(uow))).toBe(written);
    });

    it('readChangesSince answers each type\'s rows as their wire JSON, the exact text encodeWireRecord makes of each stored row', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      // Every record type and field kind: zones, an all-day event, a series with an override,
      // subtasks, reminders on an event and on a task, text that JSON escapes, and a tombstone of each type.
      const odd = 'Quote " back\\slash\nnew line\ttab \u0001 \u007f \u2028 émoji 🎉 </script>';
      const event = sampleFields('events', { calendarUid: 'wj-cal' });
      const rows = await insertRows(store, user, [
        { type: 'calendars', uid: 'wj-cal', fields: { ...sampleFields('calendars'), name: odd, isDefault: true } },
        { type: 'calendars', uid: 'wj-cal-plain', fields: { name: 'Plain', color: null, timezone: null, isDefault: false } },
        { type: 'calendars', uid: 'wj-cal-gone', fields: sampleFields('calendars'), deleted: T2 },
        { type: 'events', uid: 'wj-series', fields: { ...event, timezone: 'America/New_York', description: odd } },
        {
          type: 'events',
          uid: 'wj-override',
          fields: { ...event, rrule: null, exdate: null, recurringEventUid: 'wj-series', originalStartTime: '2024-03-04T08:30:00.000Z', icalExtras: null },
        },
        { type: 'events', uid: 'wj-all-day', fields: { ...event, startTime: '2024-03-04', endTime: '2024-03-05', allDay: true, rrule: null, exdate: null, icalExtras: null } },
        { type: 'events', uid: 'wj-ev-gone', fields: event, deleted: T2 },
        { type: 'tasks', uid: 'wj-task', fields: { ...sampleFields('tasks'), notes: odd, completed: true, completedAt: T2, priority: 0 } },
        { type: 'tasks', uid: 'wj-sub', fields: sampleFields('tasks', { taskUid: 'wj-task' }) },
        { type: 'tasks', uid: 'wj-task-gone', fields: sampleFields('tasks'), deleted: T2 },
        { type: 'reminders', uid: 'wj-rem-ev', fields: sampleFields('reminders', { eventUid: 'wj-series' }) },
        { type: 'reminders', uid: 'wj-rem-task', fields: { ...sampleFields('reminders', { taskUid: 'wj-task' }), minutesBefore: null, remindAt: T1 } },
        { type: 'reminders', uid: 'wj-rem-gone', fields: sampleFields('reminders', { eventUid: 'wj-all-day' }), deleted: T2 },
      ]);
      const read = await store.inUserTransaction(user, (uow) => uow.readChangesSince(perRecordType(() => 0n), 100));
      for (const type of RECORD_TYPES) {
        const stored = rows.filter((r) => r.type === type);
        expect(read.rows[type]).toEqual({ lastVersion: stored.at(-1)!.version, more: false, wire: stored.map(encodeWireRecord) });
      }
    });

    it('readChangesSince bounds by the last issued version: a version issued later in the unit of work is past the next read', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      const [row] = await insertRows(store, user, [{ type: 'tasks', uid: 'bd-1', fields: sampleFields('tasks') }]);
      await store.inUserTransaction(user, async (uow) => {
        const zero = perRecordType(() => 0n);
        const before = await uow.readChangesSince(zero, 10);
        expect(before.bound >= row!.version).toBe(true);
        const [issued] = await nextVersions(uow, 1);
        const after = await uow.readChangesSince(zero, 10);
        expect(after.bound).toBe(issued);
        expect(wireOf(after.rows.tasks).map((r) => r.uid)).toEqual(['bd-1']);
      });
    });
  });
}

/** The wire records a type's rows of a pull read stand for. */
function wireOf(changes: EncodedChanges): WireRecord[] {
  return changes.wire.map((text) => JSON.parse(text) as WireRecord);
}
