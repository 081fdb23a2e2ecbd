import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FieldValues, RecordType } from '@calsync/domain';
import { insertsOf, nextVersions, rowsOf, sampleFields, type UnsavedRow } from '@calsync/testkit/contracts';
import { PostgresSyncStore } from './postgres-sync-store.js';
import { announceDatabaseKinds, openTestDatabase, type TestDatabase } from '../test-support/index.js';

const kinds = announceDatabaseKinds('set-based-writes.pg.test.ts');
const T = '2024-05-01T10:00:00.000Z';

for (const kind of kinds) {
  describe(`set-based applyWrites on ${kind}`, () => {
    let database: TestDatabase;
    let store: PostgresSyncStore;
    let userId: number;
    beforeAll(async () => {
      database = await openTestDatabase(kind);
      store = new PostgresSyncStore(database.db);
      const row = await database.db
        .insertInto('users')
        .values({ phone: '+15550001234', email: null, password_hash: null, last_sync_time: null })
        .returning('id')
        .executeTakeFirstOrThrow();
      userId = row.id;
    });
    afterAll(() => database.close());

    const row = (type: RecordType, uid: string, version: bigint, fields: FieldValues): UnsavedRow => ({
      type,
      userId,
      uid,
      version,
      createdAt: T,
      updatedAt: T,
      deleted: null,
      fields,
    });

    it('writes a family in one call (parents inserted in the same statement), ids in write order, awkward text intact', async () => {
      const awkward = 'a "quoted", {braced} \\ back\\slash, NULL, comma, ünïcödé ✓';
      const written = await store.inUserTransaction(userId, async (uow) => {
        const v = await nextVersions(uow, 5);
        const rows = [
          row('reminders', 'r-1', v[4]!, { ...sampleFields('reminders', { taskUid: 't-2' }) }),
          row('tasks', 't-1', v[0]!, { ...sampleFields('tasks'), title: awkward }),
          row('tasks', 't-2', v[1]!, { ...sampleFields('tasks', { taskUid: 't-1' }), notes: 'NULL' }),
          row('calendars', 'c-1', v[2]!, sampleFields('calendars')),
          row('events', 'e-1', v[3]!, { ...sampleFields('events', { calendarUid: 'c-1' }), description: '' }),
        ];
        const writes = await insertsOf(uow, rows);
        await uow.applyWrites(writes);
        const ids = writes.map((w) => w.row.id);
        return { rows, ids, read: await Promise.all((['tasks', 'events'] as const).map((t) => rowsOf(uow, t, ['t-1', 't-2', 'e-1']))) };
      });
      const [tasks, events] = written.read;
      expect(tasks!.map((t) => [t.uid, t.fields.title, t.fields.notes, t.fields.parentTaskUid])).toEqual([
        ['t-1', awkward, null, null],
        ['t-2', 'File taxes', 'NULL', 't-1'],
      ]);
      expect(written.ids[1]! < written.ids[2]!).toBe(true);
      expect(tasks!.map((t) => t.id)).toEqual([written.ids[1], written.ids[2]]);
      expect(events![0]!.fields).toEqual({ ...sampleFields('events', { calendarUid: 'c-1' }), description: '' });
      expect(events![0]!.id).toBe(written.ids[4]);
    });

    it('updates many rows in one call', async () => {
      const out = await store.inUserTransaction(userId, async (uow) => {
        const [t1, t2] = await rowsOf(uow, 'tasks', ['t-1', 't-2']);
        const v = await nextVersions(uow, 2);
        await uow.applyWrites([
          { kind: 'update', row: { ...t1!, version: v[0]!, fields: { ...t1!.fields, priority: 1 } } },
          { kind: 'update', row: { ...t2!, version: v[1]!, fields: { ...t2!.fields, completed: true } } },
        ]);
        return { t1: t1!, t2: t2!, v, rows: await rowsOf(uow, 'tasks', ['t-1', 't-2']) };
      });
      expect(out.rows.map((r) => r.id)).toEqual([out.t1.id, out.t2.id]);
      expect(out.rows.map((r) => [r.uid, r.version, r.fields.priority, r.fields.completed, r.fields.title])).toEqual([
        ['t-1', out.v[0], 1, false, out.t1.fields.title],
        ['t-2', out.v[1], 7, true, 'File taxes'],
      ]);
    });

    it('rejects a batch that names a row twice and writes nothing of it', async () => {
      await expect(
        store.inUserTransaction(userId, async (uow) => {
          const v = await nextVersions(uow, 2);
          return uow.applyWrites([
            ...(await insertsOf(uow, [row('tasks', 't-3', v[0]!, sampleFields('tasks'))])),
            { kind: 'update', row: { ...row('tasks', 't-3', v[1]!, { ...sampleFields('tasks'), title: 'second' }), id: 0 } },
          ]);
        }),
      ).rejects.toThrow(/twice/);
      expect(await store.inUserTransaction(userId, (uow) => rowsOf(uow, 'tasks', ['t-3']))).toEqual([]);
    });
  });
}
