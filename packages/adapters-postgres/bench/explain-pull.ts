// Shows that the pull query uses the (user_id, version) index: 1,000,000 tasks of 1,000 other users
// plus 10 of one user, then EXPLAIN (ANALYZE, BUFFERS). Runs in a throw-away schema.
// Usage: TEST_DATABASE_URL=postgres://… npx tsx --conditions=source packages/adapters-postgres/bench/explain-pull.ts [rows]
import { explainPull, openTestDatabase, seedPullPlanData } from '../test-support/index.js';

const rows = Number(process.argv[2] ?? 1_000_000);
const url = process.env.TEST_DATABASE_URL;
if (!url) throw new Error('set TEST_DATABASE_URL');
const database = await openTestDatabase('postgres', { poolMax: 2, url });
try {
  const started = Date.now();
  const userId = await seedPullPlanData(database.db, rows);
  console.log(`seeded ${rows} rows of other users in ${Date.now() - started} ms; plan of the pull query for user ${userId}:`);
  console.log(await explainPull(database.db, userId));
} finally {
  await database.close();
}
