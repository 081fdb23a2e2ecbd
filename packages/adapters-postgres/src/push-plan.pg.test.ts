import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  announceDatabaseKinds,
  explainPrepared,
  hotStatements,
  openTestDatabase,
  seedPushPlanData,
  topBuffers,
  type TestDatabase,
} from '../test-support/index.js';

// The server runs every statement as a named prepared statement, which PostgreSQL may switch to a
// generic plan: one made without the parameters' values, estimating a user's rows from the table's
// average. This user has 5,000 of 25,000 events (and 5,000 receipts), far above that average, so a
// plan that reads all of the user's rows through a (user_id, …) index instead of probing the key
// shows here, in the plan's indexes and in the buffers it touches. The million-row version is
// packages/adapters-postgres/bench/explain-push.ts. PostgreSQL only: plans are PostgreSQL's.
const runs = announceDatabaseKinds('push-plan.pg.test.ts').includes('postgres');

describe.skipIf(!runs)('push and pull statement plans on PostgreSQL', () => {
  let database: TestDatabase;
  let statements: Awaited<ReturnType<typeof hotStatements>>;
  beforeAll(async () => {
    database = await openTestDatabase('postgres', { poolMax: 2 });
    const seed = await seedPushPlanData(database.db, 20_000, 5_000);
    statements = await hotStatements(database.db, seed);
  }, 120_000);
  afterAll(async () => {
    await database?.close();
  });

  for (const mode of ['force_generic_plan', 'force_custom_plan'] as const) {
    it(`the push prefetch probes the (user_id, uid) key and the full receipt key (${mode})`, async () => {
      const plan = await explainPrepared(database.db, statements.prefetch!, mode);
      expect(plan).toMatch(/Index Scan using events_user_id_uid_key on events/);
      expect(plan).toMatch(/Index Cond: \(\(user_id = (\$\d+|\d+)\) AND \(uid = w(_\d+)?\.uid\)\)/);
      expect(plan).toMatch(/Index Scan using push_receipts_pkey on push_receipts/);
      expect(plan).toMatch(/Index Cond: \(\(user_id = (\$\d+|\d+)\) AND \(entity_type = k\.entity_type\) AND \(uid = k\.uid\) AND \(fingerprint = decode\(k\.fingerprint, 'hex'::text\)\)\)/);
      expect(plan).not.toMatch(/events_user_version_idx|Seq Scan on (events|push_receipts)/);
      expect(plan).toMatch(/rows=2 loops=1/); // the existing event and its receipt
      expect(topBuffers(plan)).toBeLessThan(60);
    });

    it(`the update of one row probes the primary key (${mode})`, async () => {
      const plan = await explainPrepared(database.db, statements.updateRows!, mode);
      expect(plan).toMatch(/Index Scan using events_pkey on events/);
      expect(plan).not.toMatch(/Seq Scan on events|events_user_version_idx|events_user_id_uid_key/);
      expect(topBuffers(plan)).toBeLessThan(60);
    });

    it(`the lookup of a deleted record's live dependents probes its reference index (${mode})`, async () => {
      const plan = await explainPrepared(database.db, statements.referencing!, mode);
      expect(plan).toMatch(/Index Scan using reminders_user_event_live_idx on reminders/);
      expect(plan).not.toMatch(/Seq Scan on reminders|reminders_user_version_idx|reminders_user_id_uid_key/);
      expect(plan).toMatch(/rows=1 loops=1/);
      expect(topBuffers(plan)).toBeLessThan(60);
    });

    it(`the pull reads one page through the (user_id, version) index (${mode})`, async () => {
      const plan = await explainPrepared(database.db, statements.pull!, mode);
      expect(plan).toMatch(/(Index Scan using|Bitmap Index Scan on) events_user_version_idx/);
      expect(plan).not.toMatch(/Seq Scan on (events|calendars)/);
      expect(topBuffers(plan)).toBeLessThan(60);
    });

    it(`the default-calendar read, the inserts and the receipt insert touch a bounded number of pages (${mode})`, async () => {
      for (const name of ['defaultCalendars', 'insertRows', 'saveReceipts'] as const) {
        const plan = await explainPrepared(database.db, statements[name]!, mode);
        expect(plan, name).not.toMatch(/Seq Scan on (events|calendars|push_receipts)/);
        expect(topBuffers(plan), name).toBeLessThan(60);
      }
    });
  }
});
