import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Statement } from '../src/batch-connection.js';
import { RECORD_TYPES, perRecordType } from '@calsync/domain';
export { sqlLiteral } from '../src/pg-driver.js';
import { saveReceiptsQuery } from '../src/receipt-queries.js';
import { sqlLiteral } from '../src/pg-driver.js';
import { recordFromSql } from '../src/record-mapping.js';
import { liveReferencingQuery, lockRowsAndReceiptsQuery, readAllChangesQuery, recordQuery } from '../src/record-queries.js';
import type { DB } from '../src/schema.js';
import { insertRowsQuery, updateRowsQuery } from '../src/set-based-writes.js';

/** A fingerprint as the domain makes them; the fixture's receipts hold sha256 of the row number. */
const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * Fills `events` with `otherRows` rows of 1,000 other users and `ownRows` rows of one new user,
 * each own row with a push receipt, set-based, then ANALYZEs. Returns that user's id and calendar.
 */
export async function seedPushPlanData(db: Kysely<DB>, otherRows: number, ownRows: number): Promise<{ userId: number; calendarUid: string }> {
  await sql`insert into users (phone) select '+1777' || lpad(g::text, 7, '0') from generate_series(1, 1000) g`.execute(db);
  await sql`insert into calendars (user_id, uid, version, created_at, updated_at, name, is_default)
    select id, 'cal-other', nextval('record_version_seq'), now(), now(), 'Other', false from users where phone like '+1777%'`.execute(db);
  const { rows: range } = await sql<{ lo: number }>`select min(id) as lo from users where phone like '+1777%'`.execute(db);
  await sql`
    insert into events (user_id, uid, version, created_at, updated_at, calendar_uid, title, start_time, end_time, all_day)
    select ${range[0]!.lo}::integer + (g % 1000), 'other-' || g, nextval('record_version_seq'), now(), now(), 'cal-other',
           'other ' || g, now(), now() + interval '1 hour', false
    from generate_series(1, ${otherRows}::integer) g`.execute(db);
  const user = await db.insertInto('users').values({ phone: '+19990000001', email: null, password_hash: null, last_sync_time: null }).returning('id').executeTakeFirstOrThrow();
  const calendarUid = 'cal-own';
  await sql`insert into calendars (user_id, uid, version, created_at, updated_at, name, is_default)
    values (${user.id}::integer, ${calendarUid}, nextval('record_version_seq'), now(), now(), 'Own', true)`.execute(db);
  await sql`
    insert into events (user_id, uid, version, created_at, updated_at, calendar_uid, title, start_time, end_time, all_day)
    select ${user.id}::integer, 'own-' || g, nextval('record_version_seq'), now(), now(), ${calendarUid},
           'own ' || g, now(), now() + interval '1 hour', false
    from generate_series(1, ${ownRows}::integer) g`.execute(db);
  await sql`
    insert into push_receipts (user_id, entity_type, uid, fingerprint, result)
    select ${user.id}::integer, 'EVENT', 'own-' || g, sha256(g::text::bytea), '{"status":"created"}'::jsonb
    from generate_series(1, ${ownRows}::integer) g`.execute(db);
  // A reminder on each of the user's events: deleting one event looks up its live reminders.
  await sql`
    insert into reminders (user_id, uid, version, created_at, updated_at, event_uid, remind_at)
    select ${user.id}::integer, 'rem-' || g, nextval('record_version_seq'), now(), now(), 'own-' || g, now()
    from generate_series(1, ${ownRows}::integer) g`.execute(db);
  await sql`analyze`.execute(db);
  return { userId: user.id, calendarUid };
}

/** How the server's plan cache plans a named prepared statement: a generic plan, or one per execution. */
export type PlanCacheMode = 'force_generic_plan' | 'force_custom_plan';

/**
 * `EXPLAIN (ANALYZE, BUFFERS)` of `query` run as a named prepared statement under `mode`, the way
 * the server runs every parameterized statement (PostgreSQL switches a prepared statement to a
 * generic plan after five executions when it looks no dearer, so both plans must be good). Runs in
 * a transaction that is rolled back, so a write or a lock leaves nothing behind.
 */
export async function explainPrepared(db: Kysely<DB>, query: Statement, mode: PlanCacheMode): Promise<string> {
  const compiled = query.compile(db);
  const args = compiled.parameters.map(sqlLiteral).join(', ');
  return db.connection().execute(async (conn) => {
    const run = (text: string) => sql.raw<{ 'QUERY PLAN': string }>(text).execute(conn);
    await run('begin');
    try {
      await run(`set local plan_cache_mode = ${mode}`);
      await run(`prepare calsync_explain as ${compiled.sql}`);
      const { rows } = await run(`explain (analyze, buffers) execute calsync_explain${args === '' ? '' : `(${args})`}`);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await run('rollback');
      await run('deallocate all'); // PREPARE outlives a rollback
    }
  });
}

/** The shared buffers (hit + read) the top node of an EXPLAIN (ANALYZE, BUFFERS) touched. */
export function topBuffers(plan: string): number {
  const m = /Buffers: shared(?: hit=(\d+))?(?: read=(\d+))?/.exec(plan);
  return m === null ? 0 : Number(m[1] ?? 0) + Number(m[2] ?? 0);
}

/**
 * Every statement of a one-item push (the prefetch of one existing and one new event with their
 * receipts, the default-calendar read, the insert, the update, the receipt insert) and of a pull of
 * the latest changes, as the store builds them, for the seeded user.
 */
export async function hotStatements(db: Kysely<DB>, seed: { userId: number }): Promise<Record<string, Statement>> {
  const { userId } = seed;
  const { rows } = await recordQuery('events', userId, sql`uid = 'own-17'`, sql``).execute(db);
  const existing = recordFromSql('events', rows[0]!);
  const { rows: top } = await sql<{ v: string }>`select last_value as v from record_version_seq`.execute(db);
  const near = BigInt(top[0]!.v) - 10n;
  const wanted = perRecordType((t): string[] => (t === 'events' ? ['own-17', 'new-1'] : []));
  const keys = [
    { type: 'events' as const, uid: 'own-17', fingerprint: sha256Hex('17') },
    { type: 'events' as const, uid: 'new-1', fingerprint: sha256Hex('f') },
  ];
  return {
    prefetch: lockRowsAndReceiptsQuery(userId, wanted, keys),
    defaultCalendars: recordQuery('calendars', userId, sql`is_default and deleted is null`, sql`order by id for update`),
    insertRows: insertRowsQuery(userId, 'events', [{ ...existing, id: existing.id + 1_000_000_000, uid: 'new-1', version: BigInt(top[0]!.v) + 1n }]),
    updateRows: updateRowsQuery(userId, 'events', [{ ...existing, version: BigInt(top[0]!.v) + 2n }]),
    saveReceipts: saveReceiptsQuery(userId, [{ type: 'events', uid: 'new-1', fingerprint: sha256Hex('f'), result: { status: 'created' } }]),
    referencing: liveReferencingQuery('reminders', userId, 'event_uid', ['own-17']),
    pull: readAllChangesQuery(userId, Object.fromEntries(RECORD_TYPES.map((t) => [t, near])) as Record<(typeof RECORD_TYPES)[number], bigint>, 1000),
  };
}
