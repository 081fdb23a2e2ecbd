import { sql, type Kysely } from 'kysely';
import { eventWindowBounds, type ChangesSince, type ConflictRecord, type CollectionVersions, type Departure, type EventWindowRead, type ListedObject, type ObjectChanges, type ObjectListing, type ObjectRows, type ObjectScope, type RecordRow, type RecordType, type SyncStore, type SyncUnitOfWork } from '@calsync/domain';
import { rawPart, withBatchConnection, type Statement } from './batch-connection.js';
import { CONFLICT_COLUMNS, conflictFromSql } from './conflict-mapping.js';
import { objectRowsFrom, PostgresUnitOfWork, UNIT_PLANNER_SETTINGS } from './postgres-unit-of-work.js';
import { occurrenceSourceFromSql, recordFromSql, type SqlRecordRow } from './record-mapping.js';
import { collectionVersionsQuery, DEPARTED, departureFromSql, eventWindowQuery, newestVersionQuery, readObjectListingQuery, readObjectsChangedSinceQuery, readObjectsQuery } from './record-queries.js';
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
    return this.#inUnit(userId, async (uow) => {
      const result = await work(uow);
      await uow.finish();
      return result;
    });
  }

  /** One round trip: the read goes with BEGIN, the lock and COMMIT (`PostgresUnitOfWork.readChangesAndCommit`). */
  readChangesSince(userId: number, watermarks: Readonly<Record<RecordType, bigint>>, limit: number): Promise<ChangesSince> {
    return this.#inUnit(userId, (uow) => uow.readChangesAndCommit(watermarks, limit));
  }

  /** A unit of work of `userId` on one connection, rolled back if `work` fails (`work` commits it). */
  #inUnit<T>(userId: number, work: (uow: PostgresUnitOfWork) => Promise<T>): Promise<T> {
    if (!Number.isSafeInteger(userId)) throw new Error('userId must be an integer');
    return withBatchConnection(this.db, async (conn) => {
      const uow = new PostgresUnitOfWork(this.db, conn, userId);
      try {
        return await work(uow);
      } catch (error) {
        await uow.abort();
        throw error;
      }
    });
  }

  /**
   * One round trip, no lock: the planner settings of a unit of work (local to the implicit
   * transaction a batch of statements runs in) and the one statement of `readObjectsQuery`.
   */
  async readObjects(userId: number, scope: ObjectScope, rootUids?: readonly string[]): Promise<ObjectRows> {
    return objectRowsFrom(await this.#readAlone(userId, readObjectsQuery(userId, scope, rootUids)));
  }

  /** Like `readObjects`: one round trip, no lock. */
  async readObjectsChangedSince(userId: number, scope: ObjectScope, since: bigint): Promise<ObjectChanges> {
    const rows = await this.#readAlone(userId, readObjectsChangedSinceQuery(userId, scope, since));
    const first = rows.find((r) => r.t === null);
    const [newest, purged] = [first?.n, (first?.rec as { p?: unknown } | undefined)?.p];
    return {
      ...objectRowsFrom(rows),
      newestVersion: BigInt(typeof newest === 'string' ? newest : '0'),
      purgedThrough: BigInt(typeof purged === 'string' ? purged : '0'),
    };
  }

  /** Like `readObjects`: one round trip, no lock; only uids, versions and the extras asked for travel. */
  async readObjectListing(userId: number, scope: ObjectScope, extrasHolding: string): Promise<ObjectListing> {
    const calendars: RecordRow[] = [];
    const listed: { id: number; object: ListedObject }[] = [];
    const departures: Departure[] = [];
    for (const r of await this.#readAlone(userId, readObjectListingQuery(userId, scope, extrasHolding))) {
      if (r.t === 'calendars') calendars.push(recordFromSql('calendars', r.rec as SqlRecordRow));
      else if (r.t === DEPARTED) departures.push(departureFromSql(r));
      else listed.push({ id: Number(r.id), object: { uid: String(r.uid), deleted: r.del === true, version: BigInt(String(r.v)), icalExtras: typeof r.x === 'string' ? r.x : null } });
    }
    // As `readObjects`: in id order, whatever order the branches came in (departures by uid).
    calendars.sort((a, b) => a.id - b.id);
    listed.sort((a, b) => a.id - b.id);
    departures.sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
    return { calendars, objects: listed.map((l) => l.object), departures };
  }

  /**
   * No lock: one round trip for the newest version (`newestVersion`) and, when it moved, one for
   * the window's one statement (the expander's columns of each event and its live calendar's zone).
   * Event times are ISO text (instants and all-day dates alike), so they compare as text.
   */
  async readEventWindow(userId: number, from: string, to: string, unlessVersion?: bigint): Promise<EventWindowRead> {
    const [lo, hi] = eventWindowBounds(from, to);
    const version = await this.newestVersion(userId);
    if (version === unlessVersion) return { version, window: null };
    const calendarZones = new Map<string, string | null>();
    const events = (await this.#readAlone(userId, eventWindowQuery(userId, lo, hi))).map((r) => {
      const source = occurrenceSourceFromSql(r);
      if (r.calendar_live === true) calendarZones.set(String(source.fields.calendarUid), r.calendar_zone === null ? null : String(r.calendar_zone));
      return source;
    });
    return { version, window: { calendarZones, events } };
  }

  /** Like `readObjects`: one round trip, no lock. */
  async readCollectionVersions(userId: number): Promise<CollectionVersions> {
    const calendars = new Map<string, bigint>();
    let tasks = 0n;
    for (const r of await this.#readAlone(userId, collectionVersionsQuery(userId))) {
      if (r.c === null) tasks = BigInt(r.v);
      else calendars.set(r.c, BigInt(r.v));
    }
    return { calendars, tasks };
  }

  /** Like `readObjects`: one round trip, no lock. */
  async listUnresolvedConflicts(userId: number, afterId: number, limit: number): Promise<ConflictRecord[]> {
    const rows = await this.#readAlone(userId, sql<Record<string, unknown>>`
      select ${CONFLICT_COLUMNS} from sync_conflicts
      where user_id = ${userId} and resolved_at is null and id > cast(${afterId} as bigint)
      order by id limit ${limit}::integer`);
    return rows.map(conflictFromSql);
  }

  /** Like `readObjects`: one round trip, no lock. */
  async newestVersion(userId: number): Promise<bigint> {
    const rows = await this.#readAlone(userId, newestVersionQuery(userId));
    return BigInt(rows[0]?.v ?? '0');
  }

  /** One statement of `userId`'s, with the unit of work's planner settings, in one round trip outside any unit of work. */
  #readAlone<R>(userId: number, statement: Statement<R>): Promise<R[]> {
    if (!Number.isSafeInteger(userId)) throw new Error('userId must be an integer');
    return withBatchConnection(this.db, async (conn) => (await conn.runBatch<R>([READ_SETTINGS, statement.compile(this.db)])).rows);
  }
}

/** The unit of work's planner settings, for the implicit transaction of one batch. */
const READ_SETTINGS = rawPart(`select ${Object.entries(UNIT_PLANNER_SETTINGS).map(([name, value]) => `set_config('${name}', '${value}', true)`).join(', ')}`);
