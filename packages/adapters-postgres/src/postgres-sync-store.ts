import { sql, type Kysely } from 'kysely';
import type { SyncStore, SyncUnitOfWork } from '@calsync/domain';
import { PostgresUnitOfWork } from './postgres-unit-of-work.js';
import type { DB } from './schema.js';

/**
 * `SyncStore` on PostgreSQL or PGlite: each unit of work is one READ COMMITTED transaction that
 * starts with `pg_advisory_xact_lock(userId)`. On PGlite the driver's queue serializes all units.
 *
 * The transaction is begun and locked by one simple-query message (userId is a checked integer,
 * so inlined), and ended by one message carrying the unit's receipt INSERTs and NOTIFY statements
 * before COMMIT: two round trips instead of four per push. Both drivers (node-pg and the PGlite
 * dialect) run a text without parameters as a simple query of several statements.
 */
export class PostgresSyncStore implements SyncStore {
  constructor(private readonly db: Kysely<DB>) {}

  inUserTransaction<T>(userId: number, work: (uow: SyncUnitOfWork) => Promise<T>): Promise<T> {
    if (!Number.isSafeInteger(userId)) throw new Error('userId must be an integer');
    return this.db.connection().execute(async (conn) => {
      await sql.raw(`start transaction isolation level read committed; select pg_advisory_xact_lock(${userId}::bigint)`).execute(conn);
      const uow = new PostgresUnitOfWork(conn, userId);
      let result: T;
      try {
        result = await work(uow);
        await sql.raw([...uow.commitTail(), 'commit'].join('; ')).execute(conn);
      } catch (error) {
        // A failed statement of the commit message leaves the transaction aborted, not ended.
        await sql.raw('rollback').execute(conn);
        throw error;
      }
      return result;
    });
  }
}
