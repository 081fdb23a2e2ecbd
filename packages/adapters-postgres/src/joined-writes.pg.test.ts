import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FieldValues, PushReceipt, RecordType } from '@calsync/domain';
import { insertsOf, receiptsOf, rowsOf, sampleFields, type UnsavedRow } from '@calsync/testkit/contracts';
import { withBatchConnection } from './batch-connection.js';
import { PostgresUnitOfWork } from './postgres-unit-of-work.js';
import { announceDatabaseKinds, createTestUser, openTestDatabase, recordingBatches, type TestDatabase } from '../test-support/index.js';

const kinds = announceDatabaseKinds('joined-writes.pg.test.ts');
const T = '2024-05-01T10:00:00.000Z';

for (const kind of kinds) {
  describe(`writes of a group's pushes joined per table on ${kind}`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openTestDatabase(kind);
    });
    afterAll(() => database.close());

    it('joins a record INSERT only past receipts, receipts past record writes, and NOTIFYs past both; every row and receipt is stored', async () => {
      const userId = await createTestUser(database);
      const row = (type: RecordType, uid: string, version: bigint, fields: FieldValues): UnsavedRow => ({ type, userId, uid, version, createdAt: T, updatedAt: T, deleted: null, fields });
      const receipt = (uid: string): PushReceipt => ({ type: 'events', uid, fingerprint: uid.padEnd(64, '0').replace(/[^0-9a-f]/g, 'a'), result: { uid, status: 'created' } });
      const out = await withBatchConnection(database.db, async (conn) => {
        const { connection, batches } = recordingBatches(conn);
        const uow = new PostgresUnitOfWork(database.db, connection, userId);
        const { versions } = await uow.reserve({ versions: 5 });
        const [c1, e1, c2, e2, e3] = await insertsOf(uow, [
          row('calendars', 'c-1', versions[0]!, sampleFields('calendars')),
          row('events', 'e-1', versions[1]!, sampleFields('events', { calendarUid: 'c-1' })),
          row('calendars', 'c-2', versions[2]!, sampleFields('calendars')),
          row('events', 'e-2', versions[3]!, sampleFields('events', { calendarUid: 'c-2' })),
          row('events', 'e-3', versions[4]!, { ...sampleFields('events', { calendarUid: 'c-1' }), title: 'third' }),
        ]);
        // Three pushes of a group, as the sync service writes them.
        await uow.applyWrites([c1!, e1!]);
        await uow.saveReceipts([receipt('e-1')]);
        await uow.announceChange({ userId, version: versions[1]!, deviceUid: 'a' });
        // An event in c-1: joins e-1's INSERT, ahead of e-1's receipt.
        await uow.applyWrites([e3!]);
        await uow.saveReceipts([receipt('e-3')]);
        await uow.announceChange({ userId, version: versions[4]!, deviceUid: 'b' });
        await uow.announceAlerts([{ kind: 'conflict', userId, deviceUid: 'b', conflictId: 1, entityType: 'EVENT', entityUid: 'e-3' }]);
        // A new calendar and an event in it: that event's INSERT must not join the earlier one (ahead of c-2's).
        await uow.applyWrites([c2!, e2!]);
        await uow.saveReceipts([receipt('e-2')]);
        await uow.announceChange({ userId, version: versions[3]!, deviceUid: 'c' });
        const events = await rowsOf(uow, 'events', ['e-1', 'e-2', 'e-3']);
        const receipts = await receiptsOf(uow, ['e-1', 'e-2', 'e-3'].map((uid) => ({ type: 'events' as const, uid, fingerprint: receipt(uid).fingerprint })));
        await uow.finish();
        return { events, receipts, ids: [e1!, e2!, e3!].map((w) => w.row.id), batches };
      });
      const writes = out.batches.find((b) => b.some((sql) => sql.startsWith('insert into "events"')))!;
      const count = (prefix: string) => writes.filter((sql) => sql.startsWith(prefix)).length;
      expect([count('insert into "calendars"'), count('insert into "events"'), count('insert into push_receipts'), count('select pg_notify')]).toEqual([2, 2, 1, 1]);
      expect(out.events.map((e) => [e.uid, e.id, e.fields.calendarUid, e.fields.title])).toEqual([
        ['e-1', out.ids[0], 'c-1', 'Stand-up'],
        ['e-2', out.ids[1], 'c-2', 'Stand-up'],
        ['e-3', out.ids[2], 'c-1', 'third'],
      ]);
      expect(out.receipts.map((r) => [r.uid, r.fingerprint, r.result]).sort()).toEqual(['e-1', 'e-2', 'e-3'].map((uid) => [uid, receipt(uid).fingerprint, receipt(uid).result]));
    });
  });
}
