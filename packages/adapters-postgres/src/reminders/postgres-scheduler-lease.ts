import { sql, type Kysely } from 'kysely';
import type { LeaseState, SchedulerLease } from '@calsync/domain';
import { isoOrNullFromSql } from '../record-mapping.js';
import type { DB } from '../schema.js';

/**
 * `SchedulerLease` on PostgreSQL and PGlite: one row per lease name (migration 0010), taken or
 * renewed by one atomic upsert that only overwrites a row that is the caller's or has expired, so
 * of nodes racing for a free lease exactly one gets it. Times come from the callers' clocks.
 */
export class PostgresSchedulerLease implements SchedulerLease {
  constructor(private readonly db: Kysely<DB>) {}

  async acquire(name: string, holder: string, now: string, ttlMs: number): Promise<LeaseState> {
    const expires = new Date(Date.parse(now) + ttlMs).toISOString();
    const { rows } = await sql<{ holder: string; checked_through: unknown }>`
      insert into scheduler_leases as l (name, holder, expires_at) values (${name}, ${holder}, cast(${expires} as timestamptz))
      on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at
        where l.holder = excluded.holder or l.expires_at <= cast(${now} as timestamptz)
      returning holder, checked_through`.execute(this.db);
    if (rows.length > 0) return { held: true, checkedThrough: isoOrNullFromSql(rows[0]!.checked_through) };
    const { rows: current } = await sql<{ checked_through: unknown }>`select checked_through from scheduler_leases where name = ${name}`.execute(this.db);
    return { held: false, checkedThrough: isoOrNullFromSql(current[0]?.checked_through ?? null) };
  }

  async advance(name: string, holder: string, checkedThrough: string): Promise<boolean> {
    const result = await sql`update scheduler_leases set checked_through = greatest(coalesce(checked_through, cast(${checkedThrough} as timestamptz)), cast(${checkedThrough} as timestamptz))
      where name = ${name} and holder = ${holder}`.execute(this.db);
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  async release(name: string, holder: string): Promise<void> {
    await sql`update scheduler_leases set expires_at = '-infinity' where name = ${name} and holder = ${holder}`.execute(this.db);
  }
}
