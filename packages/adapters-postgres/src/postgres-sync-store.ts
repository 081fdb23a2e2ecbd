import type { Kysely } from 'kysely';
import type { SyncStore, SyncUnitOfWork } from '@calsync/domain';
import { withBatchConnection } from './batch-connection.js';
import { PostgresUnitOfWork } from './postgres-unit-of-work.js';
import type { DB } from './schema.js';

/**
 * `SyncStore` on PostgreSQL or PGlite: each unit of work is one READ COMMITTED transaction that
 * starts with `pg_advisory_xact_lock(userId)` (on PGlite the driver's queue serializes all units as
 * well). The unit sends its statements in batches (see `PostgresUnitOfWork`): BEGIN and the lock go
 * with its first read, its writes with its next read or with COMMIT.
 */
export class PostgresSyncStore implements SyncStore {
  constructor(private readonly db: Kysely<DB>) {}

  inUserTransaction<T>(userId: number, work: (uow: SyncUnitOfWork) => Promise<T>): Promise<T> {
    if (!Number.isSafeInteger(userId)) throw new Error('userId must be an integer');
    return withBatchConnection(this.db, async (conn) => {
      const uow = new PostgresUnitOfWork(this.db, conn, userId);
      let result: T;
      try {
        result = await work(uow);
        await uow.finish();
      } catch (error) {
        await uow.abort();
        throw error;
      }
      return result;
    });
  }
}
