import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorCodec, RetentionJob, SyncService, type Clock } from '@calsync/domain';
import { PostgresRetentionStore } from './postgres-retention-store.js';
import { PostgresSyncStore } from './postgres-sync-store.js';
import { announceDatabaseKinds, createTestUser, openTestDatabase, type TestDatabase, versionOf } from '../test-support/index.js';

// Storage stays bounded: 100 live events under a churn of edits and delete/re-create pushes, with
// every retention at one second and the maintenance job running every second, end within 2x the
// table and index size of a fresh database holding the same live rows. Without retention the
// receipts alone grow with every push. STORAGE_TEST_PUSHES scales the churn (the full size
// is 200000; the default keeps CI fast).
const PUSHES = Math.max(100, Number(process.env.STORAGE_TEST_PUSHES ?? '500') || 500);
const LIVE = 100;
const SECOND = 1000;
const clock: Clock = { now: () => new Date() };

/**
 * Bytes of every table of the database's schema with its indexes and TOAST: all forks
 * (`pg_total_relation_size`, what the bound is held on), and the main forks alone (without the
 * free-space and visibility maps a vacuumed relation gets and a never-vacuumed fresh one lacks).
 */
async function storageBytes(database: TestDatabase): Promise<{ all: number; main: number }> {
  const schema = database.schema ?? 'public';
  const { rows } = await sql<{ all: string; main: string }>`
    select coalesce(sum(pg_total_relation_size(c.oid)) filter (where c.relkind = 'r'), 0)::text as all,
      coalesce(sum(pg_relation_size(c.oid, 'main')), 0)::text as main
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and c.relkind in ('r', 'i', 't')`.execute(database.db);
  return { all: Number(rows[0]!.all), main: Number(rows[0]!.main) };
}

const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;

/** Per relation (tables, indexes, TOAST) of the schema: its main fork and its free-space and visibility maps, largest first. */
async function storageBreakdown(database: TestDatabase): Promise<string> {
  const schema = database.schema ?? 'public';
  const { rows } = await sql<{ name: string; main: string; maps: string }>`
    select c.relname as name, pg_relation_size(c.oid, 'main')::text as main,
      (pg_relation_size(c.oid, 'fsm') + pg_relation_size(c.oid, 'vm'))::text as maps
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and c.relkind in ('r', 'i', 't') order by pg_relation_size(c.oid, 'main') desc limit 12`.execute(database.db);
  return rows.map((r) => `${r.name} ${kib(Number(r.main))}+${kib(Number(r.maps))}`).join(', ');
}

describe.each(announceDatabaseKinds('storage-bounded.pg.test.ts'))('storage under churn with retention (%s)', (kind) => {
  let churned: TestDatabase;
  let fresh: TestDatabase;
  beforeAll(async () => {
    churned = await openTestDatabase(kind);
    fresh = await openTestDatabase(kind);
  });
  afterAll(async () => {
    await churned?.close();
    await fresh?.close();
  });

  const engine = (database: TestDatabase) => new SyncService({ store: new PostgresSyncStore(database.db), clock, cursorCodec: new CursorCodec('storage-test') });
  const event = (uid: string, title: string, baseVersion: string | null) => ({
    uid, op: 'upsert' as const, baseVersion, fields: { calendarUid: 'cal', title, startTime: '2026-02-01T09:00:00Z', endTime: '2026-02-01T10:00:00Z' },
  });
  const seed = async (sync: SyncService, user: number): Promise<Map<string, string>> => {
    const answer = await sync.push(user, {
      calendars: [{ uid: 'cal', op: 'upsert', baseVersion: null, fields: { name: 'Home', isDefault: true } }],
      events: Array.from({ length: LIVE }, (_, i) => event(`ev-${i}`, 'first', null)),
    });
    return new Map(answer.events.map((r) => [r.uid, versionOf(r)]));
  };

  it(`stays within 2x of a fresh database after ${PUSHES} pushes`, async () => {
    const sync = engine(churned);
    const job = new RetentionJob({
      store: new PostgresRetentionStore(churned.db, kind),
      clock,
      policy: { receiptsMs: SECOND, tombstonesMs: SECOND, conflictsMs: SECOND },
    });
    const user = await createTestUser(churned);
    const live = await seed(sync, user);
    let next = LIVE;
    let lastRun = Date.now();
    let runs = 0;
    // The size every tenth of the churn: bounded means it levels off, not that it ends small.
    const checkpoints: string[] = [];
    for (let i = 0; i < PUSHES; i++) {
      if (i > 0 && i % Math.ceil(PUSHES / 10) === 0) checkpoints.push(`${i}: ${kib((await storageBytes(churned)).main)}`);
      const uids = [...live.keys()];
      const uid = uids[i % uids.length]!;
      if (i % 4 === 3) {
        // Delete one event and create another: the tombstone and the new row's receipt are churn.
        const created = `ev-${next++}`;
        const answer = await sync.push(user, { events: [{ uid, op: 'delete', baseVersion: live.get(uid)!, fields: {} }, event(created, 'new', null)] });
        expect(answer.events.map((r) => r.status)).toEqual(['deleted', 'created']);
        live.delete(uid);
        live.set(created, versionOf(answer.events[1]!));
      } else {
        const answer = await sync.push(user, { events: [event(uid, `edit ${i}`, live.get(uid)!)] });
        expect(answer.events[0]!.status).toBe('updated');
        live.set(uid, versionOf(answer.events[0]!));
      }
      // MAINTENANCE_INTERVAL of one second.
      if (Date.now() - lastRun >= SECOND) {
        await job.runOnce();
        lastRun = Date.now();
        runs++;
      }
    }
    const beforeLastRun = await storageBytes(churned);
    await new Promise((r) => setTimeout(r, SECOND + 100));
    const last = await job.runOnce();
    const after = await storageBytes(churned);

    await seed(engine(fresh), await createTestUser(fresh));
    const baseline = await storageBytes(fresh);
    console.log(
      `[storage ${kind}] ${PUSHES} pushes, ${runs} runs during the churn: ${kib(beforeLastRun.all)} before the last run, ` +
        `${kib(after.all)} after it (main forks ${kib(after.main)}; removed ${JSON.stringify(last)}); fresh database with the same ${LIVE} live events: ` +
        `${kib(baseline.all)} (main forks ${kib(baseline.main)}); main forks during the churn: ${checkpoints.join(', ')}`,
    );
    console.log(`[storage ${kind}] churned (main+maps): ${await storageBreakdown(churned)}\n[storage ${kind}] fresh: ${await storageBreakdown(fresh)}`);
    const count = async (where: string) => Number((await sql<{ n: string }>`select count(*)::text as n from ${sql.raw(where)}`.execute(churned.db)).rows[0]!.n);
    expect(await count(`events where user_id = ${user} and deleted is null`)).toBe(LIVE);
    // What the churn left behind is gone: every receipt and tombstone was older than its retention.
    expect(await count('push_receipts')).toBe(0);
    expect(await count('events where deleted is not null')).toBe(0);
    expect(after.all).toBeLessThanOrEqual(2 * baseline.all);
  });
});
