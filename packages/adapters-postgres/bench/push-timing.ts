/**
 * Diagnostic: times batch pushes of 1,000 events and a full pull through SyncService on PostgreSQL,
 * opened as the server opens it (`createDatabase`: the node-pg driver whose connections run
 * statement batches), in a throw-away schema. Per push: the wall time, and how much of it the
 * database connection spent waiting for PostgreSQL (each `runBatch` timed).
 * `TEST_DATABASE_URL=postgres://… npx tsx --conditions=source packages/adapters-postgres/bench/push-timing.ts`
 */
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { RECORD_TYPES, SyncService, CursorCodec, type PushChangeset } from '@calsync/domain';
import { asBatchConnection } from '../src/batch-connection.js';
import { createDatabase } from '../src/database.js';
import { migrateToLatest } from '../src/migrate.js';
import { PostgresSyncStore } from '../src/postgres-sync-store.js';

const url = process.env.TEST_DATABASE_URL;
if (!url) throw new Error('set TEST_DATABASE_URL to a PostgreSQL database this script may add a throw-away schema to');
const schema = `f_timing_${process.pid}`;
const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query(`create schema ${schema}`);
const database = await createDatabase(url, { schema, poolMax: 4 });

// Every batch a unit of work sends, timed: the connection provider hands out the driver's
// connections, whose `runBatch` is wrapped here (one wrapper per connection object).
const batches: number[] = [];
const executor = database.db.getExecutor();
const provide = executor.provideConnection.bind(executor);
const wrapped = new WeakSet<object>();
executor.provideConnection = (consumer) =>
  provide((connection) => {
    const batch = asBatchConnection(connection);
    if (!wrapped.has(batch)) {
      wrapped.add(batch);
      const run = batch.runBatch.bind(batch);
      batch.runBatch = async (parts, answer) => {
        const t0 = performance.now();
        try {
          return await run(parts, answer);
        } finally {
          batches.push(performance.now() - t0);
        }
      };
    }
    return consumer(connection);
  });

try {
  await migrateToLatest(database.db);
  const { id: userId } = await database.db.insertInto('users').values({ phone: '+15550009999' }).returning('id').executeTakeFirstOrThrow();
  const svc = new SyncService({ store: new PostgresSyncStore(database.db), clock: { now: () => new Date() }, cursorCodec: new CursorCodec('x'.repeat(32)) });
  const cal = `cal-${randomUUID()}`;
  await svc.push(userId, { calendars: [{ uid: cal, op: 'upsert', baseVersion: null, fields: { name: 'B' } }] } as PushChangeset);
  for (let round = 0; round < 4; round++) {
    const events = Array.from({ length: 1000 }, (_, i) => ({
      uid: `ev-${randomUUID()}`,
      op: 'upsert',
      baseVersion: null,
      fields: { calendarUid: cal, title: `E ${i}`, startTime: new Date(Date.UTC(2026, 0, 1) + i * 3.6e6).toISOString(), endTime: new Date(Date.UTC(2026, 0, 1) + i * 3.6e6 + 1.8e6).toISOString() },
    }));
    batches.length = 0;
    const t0 = performance.now();
    const result = await svc.push(userId, { events } as PushChangeset);
    const total = performance.now() - t0;
    const failed = result.events.filter((r) => r.status !== 'created').length;
    if (failed > 0) throw new Error(`round ${round}: ${failed} of 1,000 events not created, e.g. ${JSON.stringify(result.events.find((r) => r.status !== 'created'))}`);
    const waited = batches.reduce((a, b) => a + b, 0);
    console.log(`round ${round}: total ${total.toFixed(1)} ms, waiting for PostgreSQL ${waited.toFixed(1)} ms in ${batches.length} round trips (${batches.map((b) => b.toFixed(1)).join(', ')})`);
  }
  batches.length = 0;
  const t1 = performance.now();
  let cursor: string | undefined;
  let pages = 0;
  let rows = 0;
  for (;;) {
    const page = await svc.pull(userId, { cursor, limit: 1000 });
    pages++;
    for (const type of RECORD_TYPES) rows += page[type].length;
    cursor = page.nextCursor;
    if (!page.hasMore) break;
  }
  console.log(`pull all: ${(performance.now() - t1).toFixed(1)} ms, ${rows} rows in ${pages} pages, waiting for PostgreSQL ${batches.reduce((a, b) => a + b, 0).toFixed(1)} ms in ${batches.length} round trips`);
} finally {
  await database.close();
  await admin.query(`drop schema ${schema} cascade`);
  await admin.end();
}
