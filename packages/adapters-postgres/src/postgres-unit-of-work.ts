import { sql, type Kysely, type RawBuilder } from 'kysely';
import pg from 'pg';
import {
  ENTITY_TYPE,
  FIELD_TABLES,
  perRecordType,
  type ChangesSince,
  type ConflictRecord,
  type DataChange,
  type NewConflict,
  type Prefetched,
  type PushReceipt,
  type ReceiptKey,
  type RecordRow,
  type RecordType,
  type RowWrite,
  type SyncUnitOfWork,
  type UidsByType,
} from '@calsync/domain';
import { conflictFromSql } from './conflict-mapping.js';
import { CHANNEL_SQL, encodeChange } from './notify/change-payload.js';
import { receiptFromSql, saveReceiptsText } from './receipt-queries.js';
import { recordFromSql, referenceColumn } from './record-mapping.js';
import { allChangesAlias, liveReferencingQuery, lockRowsAndReceiptsQuery, newestVersionQuery, readAllChangesQuery, recordQuery } from './record-queries.js';
import type { DB } from './schema.js';
import { insertRows, planWriteStatements, updateRows } from './set-based-writes.js';

const CONFLICT_COLUMNS = sql.raw('id, user_id, entity_type, entity_uid, winner_version, loser_snapshot, created_at, resolved_at');

/** Per type, each field with its alias in the multi-type UNION ALL reads (computed once). */
const BRANCH_KEYS = perRecordType((type) => FIELD_TABLES[type].map((f) => [f, allChangesAlias(type, f.column)] as const));

/** A record from a row of a multi-type UNION ALL read, whose field columns are aliased per type. */
function recordFromBranch(type: RecordType, r: Readonly<Record<string, unknown>>): RecordRow {
  return recordFromSql(type, r, BRANCH_KEYS[type]);
}

/**
 * `SyncUnitOfWork` over one Kysely transaction that already holds the user's advisory lock.
 * Every statement is scoped by `user_id`; record tables are addressed through their field tables.
 */
export class PostgresUnitOfWork implements SyncUnitOfWork {
  /**
   * Statements held for the COMMIT message, which the store sends as one text: `saveReceipts`
   * adds its INSERT and `announceChange` its NOTIFY (delivered at commit either way). A failing
   * INSERT fails the commit, so nothing persists. The texts inline their values as escaped
   * literals. Receipts held back are written before any later prefetch, so reads still see them.
   */
  #receiptsAtCommit: string[] = [];
  #notifiesAtCommit: string[] = [];

  constructor(
    /** A connection inside the transaction the store began. */
    private readonly trx: Kysely<DB>,
    readonly userId: number,
  ) {}

  /** The statements the store sends before COMMIT, in order: held receipts, then NOTIFYs. */
  commitTail(): string[] {
    return [...this.#receiptsAtCommit, ...this.#notifiesAtCommit];
  }

  async findLiveReferencing(type: RecordType, field: string, parentUids: readonly string[]): Promise<RecordRow[]> {
    if (parentUids.length === 0) return [];
    const { rows } = await liveReferencingQuery(type, this.userId, referenceColumn(type, field), parentUids).execute(this.trx);
    return rows.map((r) => recordFromSql(type, r));
  }

  async findLiveDefaultCalendars(): Promise<RecordRow[]> {
    return this.selectRecords('calendars', sql`is_default and deleted is null`, sql`order by id for update`);
  }

  async nextVersions(count: number): Promise<bigint[]> {
    if (count <= 0) return [];
    const { rows } = await sql<{ v: string }>`
      select nextval('record_version_seq') as v from generate_series(1, ${count}::integer) order by v`.execute(this.trx);
    return rows.map((r) => BigInt(r.v)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  async applyWrites(writes: readonly RowWrite[]): Promise<number[]> {
    for (const w of writes) this.assertOwnUser(w.row.userId);
    const plan = planWriteStatements(writes);
    const ids = new Array<number>(writes.length);
    for (const statement of plan) {
      const rows = statement.indexes.map((i) => writes[i]!.row);
      const written =
        statement.kind === 'insert'
          ? await insertRows(this.trx, this.userId, statement.type, rows)
          : await updateRows(this.trx, this.userId, statement.type, rows as RecordRow[]);
      for (const i of statement.indexes) {
        const id = written.get(writes[i]!.row.uid);
        if (id === undefined) throw new Error(`${statement.kind} of a ${statement.type} row wrote nothing`);
        ids[i] = id;
      }
    }
    return ids;
  }

  async saveReceipts(receipts: readonly PushReceipt[]): Promise<void> {
    if (receipts.length === 0) return;
    this.#receiptsAtCommit.push(saveReceiptsText(this.userId, receipts));
  }

  async insertConflicts(conflicts: readonly NewConflict[]): Promise<ConflictRecord[]> {
    if (conflicts.length === 0) return [];
    for (const c of conflicts) this.assertOwnUser(c.userId);
    const { rows } = await sql<Record<string, unknown>>`
      insert into sync_conflicts (user_id, entity_type, entity_uid, winner_version, loser_snapshot, created_at)
      select cast(${this.userId} as integer), k.entity_type, k.uid, cast(k.winner as bigint), cast(k.snapshot as jsonb), cast(k.created_at as timestamptz)
      from unnest(cast(${conflicts.map((c) => ENTITY_TYPE[c.type])} as text[]), cast(${conflicts.map((c) => c.uid)} as text[]),
                  cast(${conflicts.map((c) => c.winnerVersion.toString())} as text[]), cast(${conflicts.map((c) => JSON.stringify(c.loserSnapshot))} as text[]),
                  cast(${conflicts.map((c) => c.createdAt)} as text[]))
        with ordinality as k(entity_type, uid, winner, snapshot, created_at, ord)
      order by k.ord
      returning ${CONFLICT_COLUMNS}`.execute(this.trx);
    // Identity values are drawn in the source order, so ascending ids are the conflicts' order.
    return rows.map(conflictFromSql).sort((a, b) => a.conflictId - b.conflictId);
  }

  async lockConflict(conflictId: number): Promise<ConflictRecord | null> {
    const { rows } = await sql<Record<string, unknown>>`
      select ${CONFLICT_COLUMNS} from sync_conflicts
      where user_id = ${this.userId} and id = cast(${conflictId} as bigint) for update`.execute(this.trx);
    return rows[0] === undefined ? null : conflictFromSql(rows[0]);
  }

  async markConflictResolved(conflictId: number, resolvedAt: string): Promise<void> {
    await sql`
      update sync_conflicts set resolved_at = cast(${resolvedAt} as timestamptz)
      where user_id = ${this.userId} and id = cast(${conflictId} as bigint)`.execute(this.trx);
  }

  async listUnresolvedConflicts(afterId: number, limit: number): Promise<ConflictRecord[]> {
    const { rows } = await sql<Record<string, unknown>>`
      select ${CONFLICT_COLUMNS} from sync_conflicts
      where user_id = ${this.userId} and resolved_at is null and id > cast(${afterId} as bigint)
      order by id limit ${limit}::integer`.execute(this.trx);
    return rows.map(conflictFromSql);
  }

  async newestVersion(): Promise<bigint> {
    const { rows } = await newestVersionQuery(this.userId).execute(this.trx);
    return BigInt(rows[0]?.v ?? '0');
  }

  async announceChange(change: DataChange): Promise<void> {
    this.assertOwnUser(change.userId);
    // NOTIFY is transactional: delivered at COMMIT, dropped on ROLLBACK.
    this.#notifiesAtCommit.push(`select pg_notify(${CHANNEL_SQL}, ${pg.Client.prototype.escapeLiteral(encodeChange(change))})`);
  }

  async readChangesSince(watermarks: Readonly<Record<RecordType, bigint>>, limit: number): Promise<ChangesSince> {
    const rows = perRecordType((): RecordRow[] => []);
    const { rows: raw } = await readAllChangesQuery(this.userId, watermarks, Math.max(0, limit)).execute(this.trx);
    let bound = 0n;
    for (const r of raw) {
      if (r.t === null) {
        bound = BigInt(String(r.bound));
        continue;
      }
      const type = r.t as RecordType;
      rows[type].push(recordFromBranch(type, r));
    }
    // Each branch is ordered; a parallel plan could still interleave branches, so order once more.
    for (const list of Object.values(rows)) list.sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
    return { bound, rows };
  }

  async prefetch(wanted: UidsByType, keys: readonly ReceiptKey[]): Promise<Prefetched> {
    const rows = perRecordType((): RecordRow[] => []);
    const receipts: PushReceipt[] = [];
    // Receipts held for COMMIT are written first: this read must see them.
    for (const text of this.#receiptsAtCommit.splice(0)) await sql.raw(text).execute(this.trx);
    const { rows: raw } = await lockRowsAndReceiptsQuery(this.userId, wanted, keys).execute(this.trx);
    for (const r of raw) {
      if (r.t === null) {
        receipts.push(receiptFromSql(r.r_entity, r.r_uid, r.r_fingerprint, r.r_result));
      } else {
        const type = r.t as RecordType;
        rows[type].push(recordFromBranch(type, r));
      }
    }
    // Each CTE reads in id order; the UNION ALL keeps branch order, but order once more to be sure.
    for (const list of Object.values(rows)) list.sort((a, b) => a.id - b.id);
    return { rows, receipts };
  }

  private async selectRecords(type: RecordType, condition: RawBuilder<unknown>, tail: RawBuilder<unknown>): Promise<RecordRow[]> {
    const { rows } = await recordQuery(type, this.userId, condition, tail).execute(this.trx);
    return rows.map((r) => recordFromSql(type, r));
  }

  private assertOwnUser(userId: number): void {
    if (userId !== this.userId) throw new Error('a unit of work only writes rows of its own user');
  }
}
