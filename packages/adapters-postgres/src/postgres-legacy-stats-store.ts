import { sql, type Kysely } from 'kysely';
import type { LegacyStatsStore, UserSyncStats } from '@calsync/domain';
import { isoOrNullFromSql } from './record-mapping.js';
import type { DB } from './schema.js';

interface StatsRow {
  calendars: number;
  events: number;
  tasks: number;
  reminders: number;
  unresolved_conflicts: number;
  devices: number;
  last_sync_time: Date | string | null;
  synced: number;
  pending: number;
  conflict: number;
}

/**
 * `LegacyStatsStore` on PostgreSQL or PGlite: counts for `GET /api/users/stats` and the
 * `reset-sync` debugging tool. Touches no version.
 */
export class PostgresLegacyStatsStore implements LegacyStatsStore {
  constructor(private readonly db: Kysely<DB>) {}

  async stats(userId: number): Promise<UserSyncStats> {
    const { rows } = await sql<StatsRow>`
      select
        (select count(*)::integer from calendars where user_id = ${userId} and deleted is null) as calendars,
        (select count(*)::integer from events where user_id = ${userId} and deleted is null) as events,
        (select count(*)::integer from tasks where user_id = ${userId} and deleted is null) as tasks,
        (select count(*)::integer from reminders where user_id = ${userId} and deleted is null) as reminders,
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
      calendars: r.calendars,
      events: r.events,
      tasks: r.tasks,
      reminders: r.reminders,
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
