import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addOwnEvents,
  announceDatabaseKinds,
  batchStatements,
  createTestUser,
  openTestDatabase,
  PlanSession,
  testDatabaseUrl,
  type StatementCost,
  type TestDatabase,
} from '../test-support/index.js';

// A connection keeps the generic plan each statement got at its first execution. On a new
// installation that is a table PostgreSQL has not analyzed yet, where a probe of one row by
// (user_id, uid) could get a plan that reads the user's (user_id, version) index entries instead
// and filters on uid: each probe of a 1,000-item push then read all of the user's rows. Here every
// statement of such a push is prepared on empty tables, then the user grows to 10,000 events and
// to LARGE (FLAT_BATCH_LARGE_ROWS, default 100,000; the figure is 1,000,000) without an
// ANALYZE, and each run of the kept plan must touch a bounded number of buffers that does not grow
// with the user's rows. PostgreSQL only: plans are PostgreSQL's.
const runs = announceDatabaseKinds('flat-batches.pg.test.ts').includes('postgres');
const BATCH = 1000;
const LARGE = Number(process.env.FLAT_BATCH_LARGE_ROWS ?? 100_000);
/** Buffers per item of the batch a statement may touch (index descents, heap pages, index inserts). */
const PER_ITEM = 40;

describe.skipIf(!runs)('a 1,000-item push on plans made before its user had rows', () => {
  let database: TestDatabase;
  let session: PlanSession;
  let userId: number;
  const names: string[] = [];
  const at10k: Record<string, StatementCost> = {};

  beforeAll(async () => {
    database = await openTestDatabase('postgres', { poolMax: 2 });
    userId = await createTestUser(database);
    await sql`insert into calendars (user_id, uid, version, created_at, updated_at, name, is_default)
      values (${userId}::integer, 'cal-own', nextval('record_version_seq'), now(), now(), 'Own', true)`.execute(database.db);
    await addOwnEvents(database.db, userId, 'cal-own', 1, BATCH / 2);
    session = await PlanSession.open(testDatabaseUrl()!, database.schema!);
    for (const [name, query] of Object.entries(await batchStatements(database.db, userId, BATCH))) {
      await session.prepare(database.db, name, query);
      names.push(name);
    }
  }, 120_000);
  afterAll(async () => {
    await session?.close();
    await database?.close();
  });

  it('touches a bounded number of buffers per item when the user has 10,000 events', async () => {
    await addOwnEvents(database.db, userId, 'cal-own', BATCH / 2 + 1, 10_000);
    for (const name of names) {
      const cost = await session.run(name);
      at10k[name] = cost;
      expect(cost.plan, name).not.toMatch(/Seq Scan on (events|reminders|push_receipts)|Filter: \(uid = /);
      expect(cost.transactionBuffers, `${name}\n${cost.plan}`).toBeLessThan(BATCH * PER_ITEM);
    }
  });

  it(`touches about as many at ${LARGE} events of the user`, async () => {
    await addOwnEvents(database.db, userId, 'cal-own', 10_001, LARGE);
    for (const name of names) {
      const cost = await session.run(name);
      expect(cost.plan, name).not.toMatch(/Seq Scan on (events|reminders|push_receipts)|Filter: \(uid = /);
      expect(cost.transactionBuffers, `${name}\n${cost.plan}`).toBeLessThan(BATCH * PER_ITEM);
      // A deeper index adds a page per descent; reading the user's rows would multiply with them.
      expect(cost.transactionBuffers, `${name}: ${at10k[name]!.transactionBuffers} at 10,000\n${cost.plan}`).toBeLessThan(at10k[name]!.transactionBuffers * 2 + 50);
      console.info(`[flat batches] ${name}: ${at10k[name]!.transactionBuffers} buffers at 10,000 rows, ${cost.transactionBuffers} at ${LARGE}`);
    }
  }, 120_000 + LARGE); // filling a million rows takes minutes on a loaded machine
});
