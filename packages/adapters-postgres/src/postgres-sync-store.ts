import { sql, type Kysely } from 'kysely';
import type { SyncStore, SyncUnitOfWork } from '@calsync/domain';
import { PostgresUnitOfWork } from './postgres-unit-of-work.js';
import type { DB } from './schema.js';

/**
 * `SyncStore` on PostgreSQL or PGlite: each unit of work is one READ COMMITTED transaction that
 * starts with `pg_advisory_xact_lock(userId)`. On PGlite the driver's queue serializes all units.
 */
export class PostgresSyncStore implements SyncStore {
  constructor(private readonly db: Kysely<DB>) {}

  inUserTransaction<T>(userId: number, work: (uow: SyncUnitOfWork) => Promise<T>): Promise<T> {
    if (!Number.isSafeInteger(userId)) throw new Error('userId must be an integer');
    return this.db
      .transaction()
      .setIsolationLevel('read committed')
      .execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(cast(${userId} as bigint))`.execute(trx);
        return work(new PostgresUnitOfWork(trx, userId));
      });
  }
}
