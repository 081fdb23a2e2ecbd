import { sql, type Kysely } from 'kysely';
import { readChangesQuery } from '../src/record-queries.js';
import type { DB } from '../src/schema.js';

/**
 * Fills `tasks` with `otherRows` rows spread over 1,000 other users (set-based) and `ownRows` rows
 * of one new user with the newest versions, then ANALYZEs. Returns that user's id.
 */
export async function seedPullPlanData(db: Kysely<DB>, otherRows: number, ownRows = 10): Promise<number> {
  await sql`insert into users (phone) select '+1888' || lpad(g::text, 7, '0') from generate_series(1, 1000) g`.execute(db);
  const { rows: range } = await sql<{ lo: number; hi: number }>`select min(id) as lo, max(id) as hi from users`.execute(db);
  const lo = range[0]!.lo;
  await sql`
    insert into tasks (user_id, uid, version, created_at, updated_at, title)
    select ${lo}::integer + (g % 1000), 'bulk-' || g, nextval('record_version_seq'), now(), now(), 'bulk task ' || g
    from generate_series(1, ${otherRows}::integer) g`.execute(db);
  const user = await db.insertInto('users').values({ phone: '+19990000000', email: null, password_hash: null, last_sync_time: null }).returning('id').executeTakeFirstOrThrow();
  await sql`
    insert into tasks (user_id, uid, version, created_at, updated_at, title)
    select ${user.id}::integer, 'own-' || g, nextval('record_version_seq'), now(), now(), 'own task ' || g
    from generate_series(1, ${ownRows}::integer) g`.execute(db);
  await sql`analyze tasks`.execute(db);
  await sql`analyze users`.execute(db);
  return user.id;
}

/** `EXPLAIN (ANALYZE, BUFFERS)` of the store's pull query for `userId` (a full read: after 0, up to the sequence's last value). */
export async function explainPull(db: Kysely<DB>, userId: number, limit = 501): Promise<string> {
  const { rows: top } = await sql<{ last_value: string }>`select last_value from record_version_seq`.execute(db);
  const query = readChangesQuery('tasks', userId, 0n, BigInt(top[0]!.last_value), limit);
  const { rows } = await sql<{ 'QUERY PLAN': string }>`explain (analyze, buffers) ${query}`.execute(db);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}
