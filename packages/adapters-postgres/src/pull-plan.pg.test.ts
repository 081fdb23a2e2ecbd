import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceDatabaseKinds, explainPull, openTestDatabase, seedPullPlanData, type TestDatabase } from '../test-support/index.js';

// The million-row version (10 rows of the user) is packages/adapters-postgres/bench/explain-pull.ts. With only 10 rows of
// the user in a small table the planner may as well take the (user_id, uid) index and sort, so
// this quick check gives the user 5,000 of 105,000 rows and pulls a page of 501: reading the
// (user_id, version) index in order beats sorting 5,000 rows by a wide margin, whatever sample
// ANALYZE draws. PostgreSQL only: filling PGlite is slow and its plan proves nothing more.
const runs = announceDatabaseKinds('pull-plan.pg.test.ts').includes('postgres');

describe.skipIf(!runs)('pull query plan on PostgreSQL', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase('postgres', { poolMax: 2 });
  });
  afterAll(async () => {
    await database?.close();
  });

  it('reads one user\'s changes through the (user_id, version) index, reading only one page', async () => {
    const userId = await seedPullPlanData(database.db, 100_000, 5_000);
    const plan = await explainPull(database.db, userId);
    expect(plan).toMatch(/Index Scan using tasks_user_version_idx on tasks/);
    expect(plan).not.toMatch(/Seq Scan/);
    expect(plan).toMatch(/actual time=[\d.]+\.\.[\d.]+ rows=501 loops=1/);
  });
});
