import { sql, type Kysely } from 'kysely';
import { perRecordType, RECORD_TYPES, type LegacyStatsStore, type RecordType, type UserSyncStats } from '@calsync/domain';
import { isoOrNullFromSql } from './record-mapping.js';
import type { DB } from './schema.js';

type StatsRow = Record<RecordType, number> & {
  unresolved_conflicts: number;
  devices: number;
  last_sync_time: Date | string | null;
  synced: number;
  pending: number;
  conflict: number;
};

/**
 * `LegacyStatsStore` on PostgreSQL or PGlite: counts for `GET /api/users/stats` and the
 * `reset-sync` debugging tool. Touches no version.
 */
export class PostgresLegacyStatsStore implements LegacyStatsStore {
  constructor(private readonly db: Kysely<DB>) {}

  async stats(userId: number): Promise<UserSyncStats> {
    const { rows } = await sql<StatsRow>`
      select
        ${sql.join(RECORD_TYPES.map((type) => sql`(select count(*)::integer from ${sql.table(type)} where user_id = ${userId} and deleted is null) as ${sql.ref(type)}`))},
        (select count(*)::integer from sync_conflicts where user_id = ${userId} and resolved_at is null) as unresolved_conflicts,
        (select count(*)::integer from devices where user_id = ${userId} and revoked_at is null) as devices,
        (select last_sync_time from users where id = ${userId}) as last_sync_time,
        e.synced, e.pending, e.conflict
      from (
        select count(*) filter (where sync_status = 'SYNCED')::integer as synced,
               count(*) filter (where sync_status = 'PENDING')::integer as pending,
               count(*) filter (where sync_status = 'CONFLICT')::integer as conflict
        from events where user_id = ${userId} and deleted is null
      ) e`.execute(this.db);
    const r = rows[0]!;
    return {
      ...perRecordType((type) => r[type]),
      unresolvedConflicts: r.unresolved_conflicts,
      devices: r.devices,
      lastSyncTime: isoOrNullFromSql(r.last_sync_time),
      syncStatus: { SYNCED: r.synced, PENDING: r.pending, CONFLICT: r.conflict },
    };
  }

  async resetSync(userId: number): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const events = await trx
        .updateTable('events')
        .set({ sync_status: 'SYNCED' })
        .where('user_id', '=', userId)
        .where('sync_status', '<>', 'SYNCED')
        .executeTakeFirst();
      await trx.updateTable('users').set({ last_sync_time: null }).where('id', '=', userId).execute();
      return Number(events.numUpdatedRows);
    });
  }
}
