import { describe, expect, it } from 'vitest';
import { RECORD_TYPES, perRecordType, type RecordRow } from '@calsync/domain';
import { T2, insertFamily, insertRows, insertsOf, nextVersions, noUids, rowsOf, sampleFields, type StoreHarness, fp } from './fixtures.js';

/** Row round-trip, update, lookup, reference and default-calendar cases. */
export function rowCases(harness: () => StoreHarness): void {
  describe('rows', () => {
    it('round-trips rows of every type with every field kind and null', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      const written = await insertFamily(store, user, 'rt');
      for (const row of written) {
        const [read] = await store.inUserTransaction(user, (uow) => rowsOf(uow, row.type, [row.uid]));
        expect(read).toEqual(row);
      }
      const taskIds = written.filter((r) => r.type === 'tasks').map((r) => r.id);
      expect(new Set(taskIds).size).toBe(taskIds.length);
    });

    it('an update replaces fields, version, updatedAt and deleted, keeping id and createdAt', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      const [, event] = await insertFamily(store, user, 'up');
      const before = event!;
      const after = await store.inUserTransaction(user, async (uow) => {
        const [version] = await nextVersions(uow, 1);
        const row: RecordRow = {
          ...before,
          version: version!,
          updatedAt: T2,
          deleted: T2,
          fields: { ...before.fields, title: 'Renamed', location: null, allDay: false, rrule: null, description: 'now set' },
        };
        await uow.applyWrites([{ kind: 'update', row }]);
        return row;
      });
      const [read] = await store.inUserTransaction(user, (uow) => rowsOf(uow, 'events', [before.uid]));
      expect(read).toEqual(after);
      expect(read!.createdAt).toBe(before.createdAt);
    });

    it('prefetch returns the asked uids of every type in one call, tombstones included, in id order, with the matching receipts', async () => {
      const { store, createUser } = harness();
      const [user, other] = [await createUser(), await createUser()];
      const written = await insertRows(store, user, [
        { type: 'tasks', uid: 'lr-c', fields: sampleFields('tasks') },
        { type: 'tasks', uid: 'lr-a', fields: sampleFields('tasks') },
        { type: 'tasks', uid: 'lr-b', fields: sampleFields('tasks'), deleted: T2 },
        { type: 'calendars', uid: 'lr-cal', fields: sampleFields('calendars') },
      ]);
      await insertRows(store, other, [{ type: 'tasks', uid: 'lr-o', fields: sampleFields('tasks') }]);
      const key = { type: 'tasks' as const, uid: 'lr-a', fingerprint: fp('fp') };
      await store.inUserTransaction(user, (uow) => uow.saveReceipts([{ ...key, result: { status: 'created' } }]));
      await store.inUserTransaction(other, (uow) => uow.saveReceipts([{ ...key, uid: 'lr-o', result: 1 }]));
      await store.inUserTransaction(user, async (uow) => {
        const wanted = { ...noUids(), tasks: ['lr-b', 'lr-a', 'lr-unknown', 'lr-c', 'lr-o'], calendars: ['lr-cal', 'lr-a'] };
        const found = await uow.prefetch(wanted, [key, { ...key, fingerprint: fp('other') }, { ...key, uid: 'lr-o' }]);
        expect(found.rows.tasks).toEqual(written.filter((r) => r.type === 'tasks').sort((a, b) => a.id - b.id));
        expect(found.rows.tasks.find((r) => r.uid === 'lr-b')!.deleted).toBe(T2);
        expect(found.rows.calendars.map((r) => r.uid)).toEqual(['lr-cal']);
        expect(found.rows.events).toEqual([]);
        expect(found.rows.reminders).toEqual([]);
        expect(found.receipts).toEqual([{ ...key, result: { status: 'created' } }]);
        expect(await uow.prefetch(noUids(), [])).toEqual({ rows: perRecordType(() => []), receipts: [] });
        expect(await rowsOf(uow, 'events', ['lr-a'])).toEqual([]);
      });
    });

    it('prefetch answers any set of types, with or without draws ahead, as it answers all of them together', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      const written = await insertFamily(store, user, 'ps');
      const key = { type: 'reminders' as const, uid: 'ps-rem', fingerprint: fp('ps') };
      await store.inUserTransaction(user, (uow) => uow.saveReceipts([{ ...key, result: { status: 'created' } }]));
      const uidsOf = perRecordType((type) => written.filter((r) => r.type === type).map((r) => r.uid));
      const all = await store.inUserTransaction(user, (uow) => uow.prefetch(uidsOf, [key]));
      expect(RECORD_TYPES.map((type) => all.rows[type].length)).toEqual([1, 1, 2, 1]);
      for (let subset = 0; subset < 1 << RECORD_TYPES.length; subset++) {
        const inSubset = (type: (typeof RECORD_TYPES)[number]): boolean => (subset & (1 << RECORD_TYPES.indexOf(type))) !== 0;
        const wanted = perRecordType((type) => (inSubset(type) ? uidsOf[type] : []));
        const ahead = subset % 3 === 0 ? {} : { versions: subset, rowIds: perRecordType((type) => (inSubset(type) ? 2 : 0)), conflictIds: subset % 2 };
        const [found, drawn] = await store.inUserTransaction(user, async (uow) => [await uow.prefetch(wanted, subset % 2 === 0 ? [key] : [], ahead), await uow.reserve(ahead)] as const);
        expect(found.rows).toEqual(perRecordType((type) => (inSubset(type) ? all.rows[type] : [])));
        expect(found.receipts).toEqual(subset % 2 === 0 ? all.receipts : []);
        expect(drawn.versions.length).toBe(subset % 3 === 0 ? 0 : subset);
        expect(RECORD_TYPES.map((type) => drawn.rowIds[type].length)).toEqual(RECORD_TYPES.map((type) => (subset % 3 !== 0 && inSubset(type) ? 2 : 0)));
        expect(drawn.conflictIds.length).toBe(subset % 3 === 0 ? 0 : subset % 2);
      }
    });

    it('findLiveReferencing returns live children of the given parents only, scoped to the user', async () => {
      const { store, createUser } = harness();
      const [user, other] = [await createUser(), await createUser()];
      for (const u of [user, other]) {
        await insertRows(store, u, [
          { type: 'calendars', uid: 'fr-cal1', fields: sampleFields('calendars') },
          { type: 'calendars', uid: 'fr-cal2', fields: sampleFields('calendars') },
          { type: 'events', uid: 'fr-e1', fields: sampleFields('events', { calendarUid: 'fr-cal1' }) },
          { type: 'events', uid: 'fr-e2', fields: sampleFields('events', { calendarUid: 'fr-cal1' }), deleted: T2 },
          { type: 'events', uid: 'fr-e3', fields: sampleFields('events', { calendarUid: 'fr-cal2' }) },
          { type: 'tasks', uid: 'fr-t1', fields: sampleFields('tasks') },
          { type: 'tasks', uid: 'fr-t2', fields: sampleFields('tasks', { taskUid: 'fr-t1' }) },
          { type: 'reminders', uid: 'fr-r1', fields: sampleFields('reminders', { taskUid: 'fr-t1' }) },
        ]);
      }
      await store.inUserTransaction(user, async (uow) => {
        const events = await uow.findLiveReferencing('events', 'calendarUid', ['fr-cal1']);
        expect(events.map((r) => [r.uid, r.userId])).toEqual([['fr-e1', user]]);
        const both = await uow.findLiveReferencing('events', 'calendarUid', ['fr-cal1', 'fr-cal2']);
        expect(both.map((r) => r.uid).sort()).toEqual(['fr-e1', 'fr-e3']);
        expect((await uow.findLiveReferencing('tasks', 'parentTaskUid', ['fr-t1'])).map((r) => r.uid)).toEqual(['fr-t2']);
        expect((await uow.findLiveReferencing('reminders', 'taskUid', ['fr-t1'])).map((r) => r.uid)).toEqual(['fr-r1']);
        expect(await uow.findLiveReferencing('reminders', 'eventUid', ['fr-t1'])).toEqual([]);
        expect(await uow.findLiveReferencing('events', 'calendarUid', [])).toEqual([]);
      });
    });

    it('findLiveDefaultCalendars returns the live default only, scoped to the user', async () => {
      const { store, createUser } = harness();
      const [user, other] = [await createUser(), await createUser()];
      await insertRows(store, other, [{ type: 'calendars', uid: 'dc-o', fields: { ...sampleFields('calendars'), isDefault: true } }]);
      await store.inUserTransaction(user, async (uow) => expect(await uow.findLiveDefaultCalendars()).toEqual([]));
      await insertRows(store, user, [
        { type: 'calendars', uid: 'dc-dead', fields: { ...sampleFields('calendars'), isDefault: true }, deleted: T2 },
        { type: 'calendars', uid: 'dc-plain', fields: sampleFields('calendars') },
        { type: 'calendars', uid: 'dc-live', fields: { ...sampleFields('calendars'), isDefault: true } },
      ]);
      await store.inUserTransaction(user, async (uow) => {
        const defaults = await uow.findLiveDefaultCalendars();
        expect(defaults.map((r) => [r.uid, r.userId])).toEqual([['dc-live', user]]);
      });
    });

    it('applyWrites moves the default in one call: the old default demoted, then the new one inserted', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      const [old] = await insertRows(store, user, [{ type: 'calendars', uid: 'pd-old', fields: { ...sampleFields('calendars'), isDefault: true } }]);
      const ids = await store.inUserTransaction(user, async (uow) => {
        const [v1, v2] = await nextVersions(uow, 2);
        const [promoted] = await insertsOf(uow, [{ type: 'calendars', userId: user, uid: 'pd-new', version: v1!, createdAt: T2, updatedAt: T2, deleted: null, fields: { ...sampleFields('calendars'), isDefault: true } }]);
        const demoted = { ...old!, version: v2!, updatedAt: T2, fields: { ...old!.fields, isDefault: false } };
        await uow.applyWrites([{ kind: 'update', row: demoted }, promoted!]);
        return [promoted!.row.id, demoted.id];
      });
      expect(ids[1]).toBe(old!.id);
      await store.inUserTransaction(user, async (uow) => {
        expect((await uow.findLiveDefaultCalendars()).map((r) => [r.uid, r.id])).toEqual([['pd-new', ids[0]]]);
      });
    });
  });
}
