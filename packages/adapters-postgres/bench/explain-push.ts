// EXPLAIN (ANALYZE, BUFFERS) of every statement of a one-item push and of a pull, as named prepared
// statements under a generic and a custom plan (the two plans PostgreSQL may use for them), with
// `other` rows of 1,000 other users and `own` rows (and receipts) of the pushing user. Runs in a
// throw-away schema.
// Usage: TEST_DATABASE_URL=postgres://… npx tsx --conditions=source packages/adapters-postgres/bench/explain-push.ts [other] [own]
import { hotStatements, explainPrepared, openTestDatabase, seedPushPlanData, topBuffers } from '../test-support/index.js';

const other = Number(process.argv[2] ?? 900_000);
const own = Number(process.argv[3] ?? 100_000);
const verbose = process.argv.includes('--plans');
const url = process.env.TEST_DATABASE_URL;
if (!url) throw new Error('set TEST_DATABASE_URL to a PostgreSQL server (the script makes and drops its own schema)');
const database = await openTestDatabase('postgres', { poolMax: 2, url });
try {
  const started = Date.now();
  const seed = await seedPushPlanData(database.db, other, own);
  console.log(`seeded ${other} rows of others and ${own} of user ${seed.userId} in ${Date.now() - started} ms`);
  for (const [name, query] of Object.entries(await hotStatements(database.db, seed))) {
    for (const mode of ['force_generic_plan', 'force_custom_plan'] as const) {
      const plan = await explainPrepared(database.db, query, mode);
      const time = /Execution Time: ([\d.]+) ms/.exec(plan)?.[1];
      const scans = [...plan.matchAll(/(Index Scan|Index Only Scan|Bitmap Index Scan|Seq Scan)(?: using (\w+))? on (\w+)/g)].map((m) => `${m[1]}${m[2] ? ` ${m[2]}` : ''} on ${m[3]}`);
      console.log(`${name.padEnd(22)} ${mode.padEnd(19)} buffers ${String(topBuffers(plan)).padStart(6)}  ${time} ms  ${[...new Set(scans)].join('; ')}`);
      if (verbose) console.log(plan);
    }
  }
} finally {
  await database.close();
}
