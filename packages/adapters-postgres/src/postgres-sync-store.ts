import { sql, type Kysely } from 'kysely';
import type { SyncStore, SyncUnitOfWork } from '@calsync/domain';
import { PostgresUnitOfWork } from './postgres-unit-of-work.js';
import type { DB } from './schema.js';

/** Options of `PostgresSyncStore`. */
export interface PostgresSyncStoreOptions {
  /**
   * Send BEGIN and the advisory lock as one simple-protocol message (one round trip instead of
   * two per unit of work). Only for node-pg: PGlite's driver runs one statement per call.
   */
  readonly beginInOneRoundTrip?: boolean;
}

/**
 * `SyncStore` on PostgreSQL or PGlite: each unit of work is one READ COMMITTED transaction that
 * starts with `pg_advisory_xact_lock(userId)`. On PGlite the driver's queue serializes all units.
 */
export class PostgresSyncStore implements SyncStore {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly options: PostgresSyncStoreOptions = {},
  ) {}

  inUserTransaction<T>(userId: number, work: (uow: SyncUnitOfWork) => Promise<T>): Promise<T> {
    if (!Number.isSafeInteger(userId)) throw new Error('userId must be an integer');
    if (this.options.beginInOneRoundTrip) return this.#inOneRoundTripTransaction(userId, work);
    return this.db
      .transaction()
      .setIsolationLevel('read committed')
      .execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(cast(${userId} as bigint))`.execute(trx);
        return work(new PostgresUnitOfWork(trx, userId));
      });
  }

  /**
   * The same transaction, begun and locked by one message (userId is a checked integer, so
   * inlined), and ended by one message carrying the unit's receipt INSERTs and NOTIFY statements
   * before COMMIT.
   */
  #inOneRoundTripTransaction<T>(userId: number, work: (uow: SyncUnitOfWork) => Promise<T>): Promise<T> {
    return this.db.connection().execute(async (conn) => {
      await sql.raw(`start transaction isolation level read committed; select pg_advisory_xact_lock(${userId}::bigint)`).execute(conn);
      const uow = new PostgresUnitOfWork(conn, userId, []);
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
