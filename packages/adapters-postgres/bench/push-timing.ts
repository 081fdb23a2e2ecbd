/**
 * Diagnostic: times one batch push of 1,000 events and a full pull through SyncService on
 * PostgreSQL, statement by statement (`npx tsx --conditions=source packages/adapters-postgres/bench/push-timing.ts` with TEST_DATABASE_URL set).
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { migrateToLatest } from '../src/migrate.js';
import { PostgresSyncStore } from '../src/postgres-sync-store.js';
import type { DB } from '../src/schema.js';
import { SyncService, CursorCodec, type PushChangeset } from '@calsync/domain';

const schema = 'f_timing_' + process.pid;
const url = process.env.TEST_DATABASE_URL;
if (!url) throw new Error('set TEST_DATABASE_URL to a PostgreSQL database this script may add a throw-away schema to');
const admin = new pg.Client({ connectionString: url }); await admin.connect(); await admin.query(`create schema ${schema}`);
const pool = new pg.Pool({ connectionString: url, max: 4, options: `-c search_path=${schema}` });
const log: { sql: string; ms: number }[] = [];
let logging = false;
const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log: (e) => { if (logging) log.push({ sql: e.query.sql.replace(/\s+/g, ' ').slice(0, 90), ms: e.queryDurationMillis }); } });
try {
  await migrateToLatest(db);
  const { id: userId } = await db.insertInto('users').values({ phone: '+15550009999' }).returning('id').executeTakeFirstOrThrow();
  const svc = new SyncService({ store: new PostgresSyncStore(db), clock: { now: () => new Date() }, cursorCodec: new CursorCodec('x'.repeat(32)) });
  const cal = 'cal-' + randomUUID();
  await svc.push(userId, { calendars: [{ uid: cal, op: 'upsert', baseVersion: null, fields: { name: 'B' } }] } as PushChangeset);
  for (let round = 0; round < 4; round++) {
    const events = Array.from({ length: 1000 }, (_, i) => ({ uid: 'ev-' + randomUUID(), op: 'upsert', baseVersion: null, fields: { calendarUid: cal, title: `E ${i}`, startTime: new Date(Date.UTC(2026, 0, 1) + i * 3.6e6).toISOString(), endTime: new Date(Date.UTC(2026, 0, 1) + i * 3.6e6 + 1.8e6).toISOString() } }));
    log.length = 0; logging = true;
    const t0 = performance.now();
    await svc.push(userId, { events } as PushChangeset);
    const total = performance.now() - t0; logging = false;
    const sqlMs = log.reduce((a, b) => a + b.ms, 0);
    console.log(`round ${round}: total ${total.toFixed(1)} ms, sql ${sqlMs.toFixed(1)} ms in ${log.length} statements`);
    if (round === 3) for (const l of log) console.log(l.ms.toFixed(1).padStart(7), l.sql);
  }
  // pull timing
  logging = true; log.length = 0;
  const t1 = performance.now(); let cursor: string | undefined; let n = 0;
  for (;;) { const r = await svc.pull(userId, { cursor, limit: 1000 }); n++; cursor = r.nextCursor; if (!r.hasMore) break; }
  console.log(`pull all: ${(performance.now() - t1).toFixed(1)} ms, ${n} pages, sql ${log.reduce((a, b) => a + b.ms, 0).toFixed(1)} ms in ${log.length}`);
} finally {
  await db.destroy(); await admin.query(`drop schema ${schema} cascade`); await admin.end();
}
