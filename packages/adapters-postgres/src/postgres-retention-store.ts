import { sql, type Kysely, type RawBuilder } from 'kysely';
import { RECORD_TYPES, referenceFields, type RecordType, type RetentionKind, type RetentionStore } from '@calsync/domain';
import type { DatabaseKind } from './database.js';
import type { DB } from './schema.js';

/**
 * The maintenance lock's key: the two-int form of PostgreSQL's advisory locks, whose key space does
 * not overlap the one-bigint form the per-user locks use (`pg_advisory_xact_lock(userId)`).
 */
const MAINTENANCE_LOCK = sql`${0x63616c73}::integer, 1::integer`;

/** Tombstones go children first: a reminder before its event, an override before its series, an event before its calendar. */
const PURGE_ORDER: readonly RecordType[] = ['reminders', 'events', 'tasks', 'calendars'];

/** Every (referencing type, column) that points at rows of `target`. */
function referencesTo(target: RecordType): { type: RecordType; column: string }[] {
  return RECORD_TYPES.flatMap((type) => referenceFields(type).filter((f) => f.ref === target).map((f) => ({ type, column: f.column })));
}

/** `t` (a row of `type`) is a tombstone older than `before` that no row of its user (live or tombstone) references. */
function purgeableTombstone(type: RecordType, before: string): RawBuilder<unknown> {
  const unreferenced = referencesTo(type).map(
    (r) => sql`and not exists (select 1 from ${sql.table(r.type)} r where r.user_id = t.user_id and r.${sql.ref(r.column)} = t.uid)`,
  );
  return sql`t.deleted is not null and t.deleted < cast(${before} as timestamptz) ${sql.join(unreferenced, sql` `)}`;
}

/** `d` (a row of event_departures) is older than `before`: it goes with the tombstones of its time. */
function purgeableDeparture(before: string): RawBuilder<unknown> {
  return sql`d.departed_at < cast(${before} as timestamptz)`;
}

/** The tables each kind removes rows from. */
const TABLES_OF: Readonly<Record<RetentionKind, readonly string[]>> = {
  receipts: ['push_receipts'],
  tombstones: [...PURGE_ORDER, 'event_departures', 'sync_purge_horizons'],
  conflicts: ['sync_conflicts'],
  sessions: ['auth_sessions', 'auth_refresh_tokens'],
  codes: ['auth_otp_codes'],
  codeSends: ['auth_otp_sends'],
  renders: ['dav_renders'],
};

/** Databases (handles) with a run under way in this process: every store on one handle takes turns. */
const RUNNING = new WeakSet<object>();

const count = (rows: readonly { n: number | string }[]): number => Number(rows[0]?.n ?? 0);

/**
 * `RetentionStore` on PostgreSQL and PGlite. Each purge is one DELETE of at most `limit` rows found
 * through the indexes of migration 0007 (renders: a walk of `dav_renders` in key order that looks
 * each row's root up by its (user_id, uid) key, a run's batches reading the table about once),
 * except tombstones: those go per user, in one short transaction under the user's lock that also
 * raises the user's purge horizon. `exclusively` holds a session-level advisory lock on one pooled
 * connection for the run (released with the connection if it breaks); on PGlite one process owns
 * the folder, so only overlapping runs in this process are kept apart.
 */
export class PostgresRetentionStore implements RetentionStore {

  constructor(
    private readonly db: Kysely<DB>,
    private readonly kind: DatabaseKind,
  ) {}

  async exclusively<T>(work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    if (RUNNING.has(this.db)) return { ran: false };
    RUNNING.add(this.db);
    try {
      if (this.kind === 'pglite') return { ran: true, value: await work() };
      // Holding a pooled connection for the run: the rest of the pool serves the work and the requests.
      return await this.db.connection().execute(async (conn) => {
        const { rows } = await sql<{ ok: boolean }>`select pg_try_advisory_lock(${MAINTENANCE_LOCK}) as ok`.execute(conn);
        if (rows[0]?.ok !== true) return { ran: false } as const;
        try {
          return { ran: true, value: await work() } as const;
        } finally {
          await sql`select pg_advisory_unlock(${MAINTENANCE_LOCK})`.execute(conn);
        }
      });
    } finally {
      RUNNING.delete(this.db);
    }
  }

  async purge(kind: RetentionKind, before: string, limit: number): Promise<number> {
    const n = Math.max(0, Math.floor(limit));
    if (n === 0) return 0;
    if (kind === 'tombstones') return this.#purgeTombstones(before, n);
    if (kind === 'renders') return this.#purgeRenders(n);
    const removed = await this.#delete(PURGES[kind], before, n);
    // A session's expired refresh tokens count with the sessions, within the same limit.
    return kind === 'sessions' && removed < n ? removed + (await this.#delete(PURGES.refreshTokens, before, n - removed)) : removed;
  }

  async #delete(statement: (before: string, limit: number) => RawBuilder<unknown>, before: string, limit: number): Promise<number> {
    const { rows } = await sql<{ n: number }>`with gone as (${statement(before, limit)}) select count(*)::integer as n from gone`.execute(this.db);
    return count(rows);
  }

  async reclaim(kinds: readonly RetentionKind[]): Promise<void> {
    const tables = [...new Set(kinds.flatMap((kind) => TABLES_OF[kind]))];
    if (tables.length === 0) return;
    await this.db.connection().execute(async (conn) => {
      // VACUUM is not bounded by DATABASE_STATEMENT_TIMEOUT_MS (see statement-timeout.ts) and holds no lock a request waits for.
      if (this.kind === 'postgres') await sql`set statement_timeout = 0`.execute(conn);
      try {
        for (const table of tables) await sql`vacuum (analyze) ${sql.table(table)}`.execute(conn);
      } finally {
        if (this.kind === 'postgres') await sql`reset statement_timeout`.execute(conn);
      }
    });
  }

  /**
   * Where the last renders purge stopped when it removed its whole limit: the next one walks on
   * from there (then from the start up to it), so a run's batches read `dav_renders` once, not
   * once each. Only a hint: each call still walks the whole table before it answers less than the limit.
   */
  #rendersFrom: { userId: number; uid: string } | null = null;

  async #purgeRenders(limit: number): Promise<number> {
    const from = this.#rendersFrom;
    let gone = await this.#deleteRenders(limit, from, null);
    if (gone.n < limit && from !== null) {
      const wrapped = await this.#deleteRenders(limit - gone.n, null, from);
      gone = { n: gone.n + wrapped.n, last: wrapped.last ?? gone.last };
    }
    this.#rendersFrom = gone.n === limit ? gone.last : null;
    return gone.n;
  }

  /**
   * Deletes at most `limit` renders whose uid no live root of their user has, the first in key
   * order after `after` and up to `upTo` (each bound open when null); the count and the last key removed.
   */
  async #deleteRenders(limit: number, after: { userId: number; uid: string } | null, upTo: { userId: number; uid: string } | null): Promise<{ n: number; last: { userId: number; uid: string } | null }> {
    const within = (t: string) => [
      ...(after === null ? [] : [sql`(${sql.ref(`${t}.user_id`)}, ${sql.ref(`${t}.uid`)}) > (${after.userId}::integer, ${after.uid}::text)`]),
      ...(upTo === null ? [] : [sql`(${sql.ref(`${t}.user_id`)}, ${sql.ref(`${t}.uid`)}) <= (${upTo.userId}::integer, ${upTo.uid}::text)`]),
    ];
    const bounds = [
      ...within('r'),
      // No live root of the user under the render's uid. The same bounds on the roots (the keys are
      // equal) keep a merge anti join from reading the roots' index from its start at every batch.
      ...RENDERED_ROOTS.map((type) => sql`not exists (select 1 from ${sql.table(type)} o where o.user_id = r.user_id and o.uid = r.uid and o.deleted is null ${sql.join(within('o').map((b) => sql`and ${b}`), sql` `)})`),
    ];
    // The last key in the table's own order (its collation), not JavaScript's.
    const { rows } = await sql<{ n: number; user_id: number | null; uid: string | null }>`
      with gone as (
        delete from dav_renders d using (
          select r.user_id, r.uid from dav_renders r where ${sql.join(bounds, sql` and `)}
          order by r.user_id, r.uid limit ${limit}::integer) g
        where d.user_id = g.user_id and d.uid = g.uid
        returning d.user_id, d.uid)
      select count(*)::integer as n, l.user_id, l.uid
      from gone left join (select user_id, uid from gone order by user_id desc, uid desc limit 1) l on true
      group by l.user_id, l.uid`.execute(this.db);
    const row = rows[0];
    return { n: count(rows), last: row?.user_id == null || row.uid == null ? null : { userId: row.user_id, uid: row.uid } };
  }

  /** Users with purgeable tombstones, then per user one transaction under the user's lock. */
  async #purgeTombstones(before: string, limit: number): Promise<number> {
    const candidates = sql.join(
      [
        ...PURGE_ORDER.map((type) => sql`(select t.user_id from ${sql.table(type)} t where ${purgeableTombstone(type, before)} limit ${limit}::integer)`),
        sql`(select d.user_id from event_departures d where ${purgeableDeparture(before)} limit ${limit}::integer)`,
      ],
      sql` union `,
    );
    const { rows: users } = await sql<{ user_id: number }>`select user_id from (${candidates}) u order by user_id limit ${limit}::integer`.execute(this.db);
    let removed = 0;
    for (const { user_id: userId } of users) {
      if (removed >= limit) break;
      removed += await this.db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(${userId}::bigint)`.execute(trx);
        let done = 0;
        let top = 0n;
        /** Runs one DELETE … RETURNING version, counting what went and raising the highest version removed. */
        const remove = async (deletion: RawBuilder<unknown>): Promise<void> => {
          const { rows } = await sql<{ n: number; top: string | null }>`
            with gone as (${deletion} returning version) select count(*)::integer as n, max(version)::text as top from gone`.execute(trx);
          done += count(rows);
          if (rows[0]?.top != null && BigInt(rows[0].top) > top) top = BigInt(rows[0].top);
        };
        for (const type of PURGE_ORDER) {
          if (done >= limit - removed) break;
          await remove(sql`delete from ${sql.table(type)} where id in (
            select t.id from ${sql.table(type)} t where t.user_id = ${userId} and ${purgeableTombstone(type, before)}
            order by t.id limit ${limit - removed - done}::integer)`);
        }
        // Departures as old: a sync token from before one may have missed it, as it may a purged tombstone.
        if (done < limit - removed) {
          await remove(sql`delete from event_departures where (user_id, calendar_uid, uid) in (
            select d.user_id, d.calendar_uid, d.uid from event_departures d where d.user_id = ${userId} and ${purgeableDeparture(before)}
            limit ${limit - removed - done}::integer)`);
        }
        if (done > 0) {
          await sql`insert into sync_purge_horizons (user_id, purged_through) values (${userId}, ${top.toString()}::bigint)
            on conflict (user_id) do update set purged_through = greatest(sync_purge_horizons.purged_through, excluded.purged_through)`.execute(trx);
        }
        return done;
      });
    }
    return removed;
  }
}

/** The record types whose rows are CalDAV objects' roots, under whose uids `dav_renders` keeps texts. */
const RENDERED_ROOTS: readonly RecordType[] = ['events', 'tasks'];

/** The DELETE … RETURNING of each kind but tombstones and renders: at most `limit` rows its rule names. */
const PURGES: Readonly<Record<Exclude<RetentionKind, 'tombstones' | 'renders'> | 'refreshTokens', (before: string, limit: number) => RawBuilder<unknown>>> = {
  receipts: (before, limit) => sql`delete from push_receipts where ctid = any(array(
    select ctid from push_receipts where created_at < cast(${before} as timestamptz) limit ${limit}::integer)) returning 1`,
  conflicts: (before, limit) => sql`delete from sync_conflicts where id in (
    select id from sync_conflicts where resolved_at < cast(${before} as timestamptz) limit ${limit}::integer) returning 1`,
  // Families (their tokens go with them); a family that goes on loses its expired tokens below.
  sessions: (before, limit) => sql`delete from auth_sessions where id in (
    select s.id from auth_sessions s
    where s.revoked_at < cast(${before} as timestamptz)
       or not exists (select 1 from auth_refresh_tokens k where k.session_id = s.id and k.expires_at >= cast(${before} as timestamptz))
    limit ${limit}::integer) returning 1`,
  refreshTokens: (before, limit) => sql`delete from auth_refresh_tokens where token_hash in (
    select token_hash from auth_refresh_tokens where expires_at < cast(${before} as timestamptz) limit ${limit}::integer) returning 1`,
  codes: (before, limit) => sql`delete from auth_otp_codes where phone in (
    select phone from auth_otp_codes where expires_at < cast(${before} as timestamptz) limit ${limit}::integer) returning 1`,
  codeSends: (before, limit) => sql`delete from auth_otp_sends where id in (
    select id from auth_otp_sends where sent_at < cast(${before} as timestamptz) limit ${limit}::integer) returning 1`,
};
