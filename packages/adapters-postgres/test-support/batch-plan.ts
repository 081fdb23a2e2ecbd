import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { BatchConnection, Statement } from '../src/batch-connection.js';
import pg from 'pg';
import { RECORD_TYPES, perRecordType, type RecordRow } from '@calsync/domain';
import { saveReceiptsQuery } from '../src/receipt-queries.js';
import { recordFromSql } from '../src/record-mapping.js';
import { liveReferencingQuery, lockRowsAndReceiptsQuery, newestVersionQuery, readAllChangesQuery, recordQuery } from '../src/record-queries.js';
import type { DB } from '../src/schema.js';
import { UNIT_PLANNER_SETTINGS } from '../src/postgres-unit-of-work.js';
import { insertRowsQuery, updateRowsQuery } from '../src/set-based-writes.js';
import { sqlLiteral, topBuffers } from './push-plan.js';

/** A fingerprint as the domain makes them; the fixture's receipts hold sha256 of the row number. */
const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Gives `userId` events `own-<from>` … `own-<to>` in `calendarUid`, each with a receipt, in two set-based statements (no ANALYZE). */
export async function addOwnEvents(db: Kysely<DB>, userId: number, calendarUid: string, from: number, to: number): Promise<void> {
  await sql`
    insert into events (user_id, uid, version, created_at, updated_at, calendar_uid, title, start_time, end_time, all_day)
    select ${userId}::integer, 'own-' || g, nextval('record_version_seq'), now(), now(), ${calendarUid}, 'own ' || g,
           '2026-01-01T10:00:00.000Z', '2026-01-01T11:00:00.000Z', false
    from generate_series(${from}::integer, ${to}::integer) g`.execute(db);
  await sql`
    insert into push_receipts (user_id, entity_type, uid, fingerprint, result)
    select ${userId}::integer, 'EVENT', 'own-' || g, sha256(g::text::bytea), '{"status":"created"}'::jsonb
    from generate_series(${from}::integer, ${to}::integer) g`.execute(db);
}

/**
 * The statements of one push of `size` items as the store builds them, for a user whose events
 * `own-1` … `own-<size/2>` exist: the prefetch of `size` events (half of them existing) with their
 * receipts, the insert of the other half, the update of the existing half, the insert of a
 * reminder on each existing event (PostgreSQL checks each one's event through the foreign key),
 * the receipts, the lookup of the existing events' live reminders, one pull page, and the user's
 * newest version (what a notification stream and an occurrence read start from).
 */
export async function batchStatements(db: Kysely<DB>, userId: number, size: number): Promise<Record<string, Statement>> {
  const half = size / 2;
  const { rows } = await recordQuery('events', userId, sql`uid like 'own-%'`, sql`order by id limit ${half}::integer`).execute(db);
  if (rows.length < half) throw new Error(`batchStatements: the user has ${rows.length} events, ${half} needed`);
  const existing = rows.map((r) => recordFromSql('events', r));
  const { rows: top } = await sql<{ v: string }>`select last_value as v from record_version_seq`.execute(db);
  const next = BigInt(top[0]!.v) + 1_000_000n; // versions and ids far above what the fills will draw
  const created: RecordRow[] = existing.map((e, i) => ({ ...e, id: 1_000_000_000 + i, uid: `new-${i}`, version: next + BigInt(i) }));
  const updated: RecordRow[] = existing.map((e, i) => ({ ...e, version: next + BigInt(half + i), fields: { ...e.fields, title: `edit ${i}` } }));
  const reminders: RecordRow[] = existing.map((e, i) => ({
    type: 'reminders',
    id: 1_000_000_000 + i,
    userId,
    uid: `rem-${i}`,
    version: next + BigInt(size + i),
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
    deleted: null,
    fields: { eventUid: e.uid, taskUid: null, minutesBefore: 10, remindAt: null },
  }));
  const wanted = perRecordType((t): string[] => (t === 'events' ? [...existing, ...created].map((r) => r.uid) : []));
  const keys = [...existing, ...created].map((r, i) => ({ type: 'events' as const, uid: r.uid, fingerprint: sha256Hex(i < half ? `${i + 1}` : 'f') }));
  return {
    prefetch: lockRowsAndReceiptsQuery(userId, wanted, keys),
    insertEvents: insertRowsQuery(userId, 'events', created),
    updateEvents: updateRowsQuery(userId, 'events', updated),
    insertReminders: insertRowsQuery(userId, 'reminders', reminders),
    saveReceipts: saveReceiptsQuery(userId, created.map((r) => ({ type: 'events' as const, uid: r.uid, fingerprint: sha256Hex('f'), result: { status: 'created' } }))),
    referencing: liveReferencingQuery('reminders', userId, 'event_uid', existing.map((r) => r.uid)),
    pull: readAllChangesQuery(userId, Object.fromEntries(RECORD_TYPES.map((t) => [t, next - 1_000_000n - BigInt(size)])) as Record<(typeof RECORD_TYPES)[number], bigint>, size),
    newestVersion: newestVersionQuery(userId),
  };
}

/** What running a prepared statement cost: the buffers of its plan's top node, and of the whole transaction (foreign-key checks included). */
export interface StatementCost {
  readonly planBuffers: number;
  readonly transactionBuffers: number;
  readonly plan: string;
}

/**
 * One connection that prepares statements the way the server's connections do (named, generic
 * plan made at the first execution and kept) and later explains them again, so a test sees the
 * plan a long-lived connection keeps after its tables have grown.
 */
export class PlanSession {
  readonly #names = new Map<string, { name: string; args: string }>();

  private constructor(private readonly client: pg.Client, private readonly schema: string) {}

  static async open(url: string, schema: string): Promise<PlanSession> {
    const client = new pg.Client({ connectionString: url, options: `-c plan_cache_mode=force_generic_plan -c search_path=${schema}` });
    await client.connect();
    // The settings a unit of work plans its statements with.
    for (const [name, value] of Object.entries(UNIT_PLANNER_SETTINGS)) await client.query(`set ${name} = ${value}`);
    return new PlanSession(client, schema);
  }

  /** PREPAREs `query` and makes its generic plan now (EXPLAIN without running it). */
  async prepare(db: Kysely<DB>, key: string, query: Statement): Promise<string> {
    const compiled = query.compile(db);
    const name = `plan_${this.#names.size + 1}`;
    const args = compiled.parameters.length === 0 ? '' : `(${compiled.parameters.map(sqlLiteral).join(', ')})`;
    await this.client.query(`prepare ${name} as ${compiled.sql}`);
    this.#names.set(key, { name, args });
    return this.#plan(`explain execute ${name}${args}`);
  }

  /** Runs the statement prepared under `key` with EXPLAIN (ANALYZE, BUFFERS) in a transaction that is rolled back. */
  async run(key: string): Promise<StatementCost> {
    const { name, args } = this.#names.get(key)!;
    const fetched = async () =>
      Number((await this.client.query(`select coalesce(sum(pg_stat_get_xact_blocks_fetched(oid)), 0)::bigint as n from pg_class where relnamespace = $1::regnamespace`, [this.schema])).rows[0].n);
    await this.client.query('begin');
    try {
      const before = await fetched();
      const plan = await this.#plan(`explain (analyze, buffers) execute ${name}${args}`);
      const after = await fetched();
      return { planBuffers: topBuffers(plan), transactionBuffers: after - before, plan };
    } finally {
      await this.client.query('rollback');
    }
  }

  async #plan(text: string): Promise<string> {
    const { rows } = await this.client.query<{ 'QUERY PLAN': string }>(text);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }

  close(): Promise<void> {
    return this.client.end();
  }
}

/** `conn` passing every batch on, recording each batch's statement texts in `batches`, in order. */
export function recordingBatches(conn: BatchConnection): { readonly connection: BatchConnection; readonly batches: string[][] } {
  const batches: string[][] = [];
  const connection: BatchConnection = {
    executeQuery: (query) => conn.executeQuery(query),
    streamQuery: (query, chunkSize) => conn.streamQuery(query, chunkSize),
    runBatch: (parts, answer) => (batches.push(parts.map((p) => p.sql)), conn.runBatch(parts, answer)),
  };
  return { connection, batches };
}
