import { CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely';
import {
  DrawnAhead,
  ENTITY_TYPE,
  askedCounts,
  asksForAny,
  RECORD_TYPES,
  perRecordType,
  type ChangesSince,
  type ConflictRecord,
  type DataChange,
  type EncodedChanges,
  type ObjectRows,
  type ObjectScope,
  type NewConflict,
  type Prefetched,
  type PushReceipt,
  type ReceiptKey,
  type RecordRow,
  type RecordType,
  type Reserved,
  type ReserveRequest,
  type RowWrite,
  type SyncUnitOfWork,
  type UidsByType,
  type NotificationSettings,
  type UserAlert,
} from '@calsync/domain';
import { Mutex } from 'async-mutex';
import { notificationSettingsFromSql } from './auth/postgres-user-store.js';
import { CONFLICT_COLUMNS, conflictFromSql } from './conflict-mapping.js';
import { encodeAlert, encodeChange, notifyAllQuery } from './notify/change-payload.js';
import { receiptFromSql, saveReceiptsQuery } from './receipt-queries.js';
import { recordFromSql, referenceColumn, type SqlRecordRow } from './record-mapping.js';
import {
  DEPARTED,
  departureFromSql,
  liveReferencingQuery,
  lockRowsAndReceiptsQuery,
  readAllChangesQuery,
  readObjectsQuery,
  recordQuery,
  reserveQuery,
  SETTINGS_ROW,
  type ReserveCounts,
} from './record-queries.js';
import type { DB } from './schema.js';
import { departuresQuery, insertRowsQuery, planWriteStatements, updateRowsQuery } from './set-based-writes.js';
import { rawPart, type BatchConnection, type BatchPart, type Statement } from './batch-connection.js';

/** The answer of `readObjectsQuery`: its rows by type (an event with a recurring event uid is an override), each list in id order. */
export function objectRowsFrom(raw: readonly Readonly<Record<string, unknown>>[]): ObjectRows {
  const rows: ObjectRows = { calendars: [], roots: [], overrides: [], reminders: [], departures: [] };
  for (const r of raw) {
    if (r.t === null) continue;
    if (r.t === DEPARTED) {
      rows.departures.push(departureFromSql(r.rec as Readonly<Record<string, unknown>>));
      continue;
    }
    const type = r.t as RecordType;
    const row = recordFromSql(type, r.rec as SqlRecordRow);
    if (type === 'calendars') rows.calendars.push(row);
    else if (type === 'reminders') rows.reminders.push(row);
    else if (type === 'events' && row.fields.recurringEventUid != null) rows.overrides.push(row);
    else rows.roots.push(row);
  }
  // The statement leaves the order to the planner: id order here (departures by uid).
  for (const list of [rows.calendars, rows.roots, rows.overrides, rows.reminders]) list.sort((a, b) => a.id - b.id);
  rows.departures.sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
  return rows;
}

const ascending = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

/** A reservation request's counts (`askedCounts`) as the counts of `reserveQuery`. */
function reserveCounts(asked: ReturnType<typeof askedCounts>): ReserveCounts {
  return [asked.versions, ...RECORD_TYPES.map((type) => asked.rowIds[type]), asked.conflictIds];
}

/** The values `reserveQuery` (or the prefetch's reservation rows) drew, as `reserve` answers them: each list ascending. */
function reservedFrom(drawn: readonly { readonly k: string; readonly n: string }[]): Reserved {
  const versions: bigint[] = [];
  const rowIds = perRecordType((): number[] => []);
  const conflictIds: number[] = [];
  for (const { k, n } of drawn) {
    if (k === 'v') versions.push(BigInt(n));
    else if (k === 'c') conflictIds.push(Number(n));
    else rowIds[k as RecordType].push(Number(n));
  }
  versions.sort(ascending);
  for (const list of [...Object.values(rowIds), conflictIds]) list.sort((a, b) => a - b);
  return { versions, rowIds, conflictIds };
}

/**
 * Planner settings of every unit of work. Each statement of a unit reads or writes the rows it
 * names, through an index probe per row; no statement of a unit wants to read a table whole. A
 * connection keeps the plan a statement got at its first execution, and a plan made while a table
 * still looked small (a new installation or user, before PostgreSQL analyzed the table) could
 * join a batch by scanning the table: the UPDATE of 500 rows read every row of `events`. Made
 * with sequential scans and hash and merge joins disabled, a plan probes, however large the table
 * grows under it (flat-batches.pg.test.ts prepares the statements on empty tables and runs them at
 * 10,000 and more rows of one user). JIT compilation is off too: a disabled path's cost counts toward
 * jit_above_cost, and a statement that needs no index (the sequence's last value) would be compiled
 * at every execution.
 */
export const UNIT_PLANNER_SETTINGS: Readonly<Record<string, string>> = { enable_seqscan: 'off', enable_hashjoin: 'off', enable_mergejoin: 'off', jit: 'off' };

const SETTINGS_SQL = Object.entries(UNIT_PLANNER_SETTINGS).map(([name, value]) => `set_config('${name}', '${value}', true)`).join(', ');

/**
 * A unit's first statement after BEGIN: its user's advisory lock and the planner settings. One
 * fixed text with the user as its parameter, so each connection (PGlite: its one session) prepares
 * it once; with the user inlined it was parsed and planned at every unit, a tenth of the engine's
 * time in a one-event push on PGlite.
 */
const LOCK_AND_SETTINGS = `select pg_advisory_xact_lock(cast($1 as bigint)), ${SETTINGS_SQL}`;

/**
 * What a queued statement is, as far as joining the writes of the pushes of a group goes: a record
 * INSERT (`rows`: the user, then one array per column, `insertRowsQuery`), a receipts INSERT
 * (`receipts`: the user and one JSON array, `saveReceiptsQuery`), a NOTIFY (`notify`: one array
 * of payloads, `notifyAllQuery`), another write, or anything else.
 */
type QueuedKind = 'rows' | 'receipts' | 'notify' | 'write' | 'other';

/** A statement not yet sent, and what it is. */
interface Queued {
  part: BatchPart;
  readonly kind: QueuedKind;
}

/**
 * Per kind that joins an earlier statement of its text: the kinds of statement it may move ahead
 * of, because they neither read nor write what it writes and it does not need their rows. A record
 * INSERT needs the rows of earlier record writes (a parent, a calendar), so it moves only past
 * receipts and NOTIFYs; receipts name only their user, and no record write or NOTIFY reads them.
 * A NOTIFY is delivered only when the unit commits, in the order of its payloads, and never when it
 * rolls back: it may move past any write, but not past another NOTIFY (it joins the last one).
 */
const MOVES_AHEAD_OF: Readonly<Partial<Record<QueuedKind, ReadonlySet<QueuedKind>>>> = {
  rows: new Set<QueuedKind>(['receipts', 'notify']),
  receipts: new Set<QueuedKind>(['rows', 'write', 'notify']),
  notify: new Set<QueuedKind>(['rows', 'receipts', 'write']),
};

/** The parameters of two statements of one joinable text as those of one statement: the rows of `a`, then those of `b`. */
function joinParameters(kind: QueuedKind, a: readonly unknown[], b: readonly unknown[]): unknown[] {
  if (kind === 'notify') return [[...(a[0] as unknown[]), ...(b[0] as unknown[])]];
  if (kind === 'rows') return [a[0], ...a.slice(1).map((values, i) => [...(values as unknown[]), ...(b[i + 1] as unknown[])])];
  // Two JSON arrays, each of at least one receipt: one array, the receipts of `a` first.
  return [a[0], `${(a[1] as string).slice(0, -1)},${(b[1] as string).slice(1)}`];
}

/**
 * `SyncUnitOfWork` over one connection: one READ COMMITTED transaction that takes the user's
 * advisory lock. Every statement is scoped by `user_id`; record tables are addressed through their
 * field tables.
 *
 * Round trips: statements that answer nothing the engine waits for (BEGIN and the lock, the row
 * writes, conflicts, receipts, NOTIFY, marking a conflict resolved) are queued and sent together
 * with the next read, or with COMMIT (`finish`), as one batch (`BatchConnection.runBatch`). The lock is the first
 * statement of the first batch, so it is held before any read runs. The prefetch also draws what
 * the push will most likely reserve (its `ahead` hint, in the same statement), so a push is two
 * round trips (BEGIN + lock + prefetch and draw, writes + COMMIT) unless it needs more versions or
 * ids than that (a cascade, a demotion, more than one conflict: one more for `reserve`). A push
 * that may make a conflict (its hint draws a conflict id) also reads the user's notification
 * settings with that prefetch, which `readNotificationSettings` then answers without a round trip
 * of its own (before, a push that made a conflict took three). A pull
 * page is one (`readChangesAndCommit`: BEGIN, the lock, the read and COMMIT). Values drawn ahead and not handed out are gaps in the sequences, like the values
 * of a unit that rolled back. A queued write that fails
 * fails the batch it travels in, and the store rolls the unit back.
 *
 * The pushes of a group each write their rows, receipts and NOTIFY in turn; a record INSERT, a
 * receipts INSERT or a NOTIFY joins the queued one of the same text when only statements it may
 * move ahead of came after that one (`MOVES_AHEAD_OF`), so a group writes each table in one
 * statement, rows in the order they were written, and announces its changes and alerts in one
 * NOTIFY statement, in the order announced: each statement's fixed cost (on PGlite its executor
 * start, most of a one-row INSERT) is paid once a group.
 */
export class PostgresUnitOfWork implements SyncUnitOfWork {
  /** Statements not yet sent, in order. */
  readonly #queue: Queued[];
  /** Whether anything was sent, so the transaction has begun. */
  #sent = false;
  /** Whether a store call queued anything beyond the opening BEGIN and lock. */
  #used = false;
  /** Whether COMMIT went with the unit's last read (`readChangesAndCommit`). */
  #finished = false;
  /** One batch at a time on the connection, in call order (store calls of a unit may overlap). */
  readonly #sending = new Mutex();
  /** Values `prefetch` drew ahead (its `ahead` hint) that `reserve` has not handed out yet. */
  #ahead: DrawnAhead | null = null;
  /** The user's notification settings as a prefetch read them (null: none stored); undefined until one did. */
  #settings: NotificationSettings | null | undefined = undefined;

  constructor(
    /** Compiles the unit's statements (nothing runs through it). */
    private readonly db: Kysely<DB>,
    /** The connection the unit runs on (outside any transaction: the unit begins its own). */
    private readonly conn: BatchConnection,
    readonly userId: number,
  ) {
    if (!Number.isSafeInteger(userId)) throw new Error('userId must be an integer');
    this.#queue = [
      { part: rawPart('start transaction isolation level read committed'), kind: 'other' },
      { part: { sql: LOCK_AND_SETTINGS, parameters: [userId] }, kind: 'other' },
    ];
  }

  /** Sends the queue with `query`, then `after`; answers `query`'s rows. */
  async #read<R>(query: Statement<R>, after: readonly BatchPart[] = []): Promise<R[]> {
    const compiled = query.compile(this.db);
    this.#used = true;
    const { rows } = await this.#send<R>(compiled, after);
    return rows;
  }

  /** Sends what is queued with `last`, then `after` (answering `last`'s rows), after any batch still under way. */
  #send<R>(last: BatchPart, after: readonly BatchPart[] = []): Promise<{ rows: R[] }> {
    return this.#sending.runExclusive(() => {
      if (this.#finished) throw new Error('this unit of work has committed');
      const parts = this.#queue.splice(0).map((q) => q.part);
      parts.push(last);
      const answer = parts.length - 1;
      parts.push(...after);
      this.#sent = true;
      return this.conn.runBatch<R>(parts, answer);
    });
  }

  #write(query: Statement, kind: QueuedKind = 'write'): void {
    const part = query.compile(this.db);
    this.#used = true;
    const movesAheadOf = MOVES_AHEAD_OF[kind];
    if (movesAheadOf !== undefined) {
      for (let i = this.#queue.length - 1; i >= 0; i--) {
        const queued = this.#queue[i]!;
        if (queued.kind === kind && queued.part.sql === part.sql) {
          queued.part = { sql: part.sql, parameters: joinParameters(kind, queued.part.parameters, part.parameters) };
          return;
        }
        if (!movesAheadOf.has(queued.kind)) break;
      }
    }
    this.#queue.push({ part, kind });
  }

  /** Sends what is queued and COMMIT (nothing at all when the unit never used the store). */
  async finish(): Promise<void> {
    if (!this.#used || this.#finished) return;
    await this.#send(rawPart('commit'));
  }

  /** Drops what is queued and rolls back what was sent (a failed statement leaves the transaction aborted, not ended). */
  async abort(): Promise<void> {
    await this.#sending.runExclusive(async () => {
      this.#queue.length = 0;
      if (this.#sent) await this.conn.executeQuery(CompiledQuery.raw('rollback'));
    });
  }

  async findLiveReferencing(type: RecordType, field: string, parentUids: readonly string[]): Promise<RecordRow[]> {
    if (parentUids.length === 0) return [];
    const rows = await this.#read(liveReferencingQuery(type, this.userId, referenceColumn(type, field), parentUids));
    return rows.map((r) => recordFromSql(type, r));
  }

  async readObjects(scope: ObjectScope, rootUids?: readonly string[]): Promise<ObjectRows> {
    return objectRowsFrom(await this.#read(readObjectsQuery(this.userId, scope, rootUids)));
  }

  async findLiveDefaultCalendars(): Promise<RecordRow[]> {
    return this.selectRecords('calendars', sql`is_default and deleted is null`, sql`order by id for update`);
  }

  async reserve(request: ReserveRequest): Promise<Reserved> {
    const ahead = this.#ahead?.take(request);
    if (ahead !== undefined) return ahead;
    // What is drawn now is higher than what was drawn ahead: the rest of that is never handed out
    // after it (a unit's versions strictly increase across its calls).
    this.#ahead = null;
    return reservedFrom(asksForAny(request) ? await this.#read(reserveQuery(reserveCounts(askedCounts(request)))) : []);
  }

  async applyWrites(writes: readonly RowWrite[]): Promise<void> {
    for (const w of writes) this.assertOwnUser(w.row.userId);
    for (const statement of planWriteStatements(writes)) {
      const rows = statement.indexes.map((i) => writes[i]!.row);
      if (statement.kind === 'insert') this.#write(insertRowsQuery(this.userId, statement.type, rows), 'rows');
      else this.#write(updateRowsQuery(this.userId, statement.type, rows));
    }
    const departures = departuresQuery(this.userId, writes);
    if (departures !== null) this.#write(departures);
  }

  async saveReceipts(receipts: readonly PushReceipt[]): Promise<void> {
    if (receipts.length === 0) return;
    this.#write(saveReceiptsQuery(this.userId, receipts), 'receipts');
  }

  async insertConflicts(conflicts: readonly NewConflict[]): Promise<void> {
    if (conflicts.length === 0) return;
    for (const c of conflicts) this.assertOwnUser(c.userId);
    this.#write(sql`
      insert into sync_conflicts (id, user_id, entity_type, entity_uid, winner_version, loser_snapshot, created_at)
      overriding system value
      select cast(k.id as bigint), cast(${this.userId} as integer), k.entity_type, k.uid, cast(k.winner as bigint), cast(k.snapshot as jsonb), cast(k.created_at as timestamptz)
      from unnest(cast(${conflicts.map((c) => String(c.conflictId))} as text[]), cast(${conflicts.map((c) => ENTITY_TYPE[c.type])} as text[]),
                  cast(${conflicts.map((c) => c.uid)} as text[]), cast(${conflicts.map((c) => c.winnerVersion.toString())} as text[]),
                  cast(${conflicts.map((c) => JSON.stringify(c.loserSnapshot))} as text[]), cast(${conflicts.map((c) => c.createdAt)} as text[]))
        as k(id, entity_type, uid, winner, snapshot, created_at)`);
  }

  async lockConflict(conflictId: number): Promise<ConflictRecord | null> {
    const rows = await this.#read(sql<Record<string, unknown>>`
      select ${CONFLICT_COLUMNS} from sync_conflicts
      where user_id = ${this.userId} and id = cast(${conflictId} as bigint) for update`);
    return rows[0] === undefined ? null : conflictFromSql(rows[0]);
  }

  async markConflictResolved(conflictId: number, resolvedAt: string): Promise<void> {
    this.#write(sql`
      update sync_conflicts set resolved_at = cast(${resolvedAt} as timestamptz)
      where user_id = ${this.userId} and id = cast(${conflictId} as bigint)`);
  }

  async announceChange(change: DataChange): Promise<void> {
    this.assertOwnUser(change.userId);
    this.#write(notifyAllQuery([encodeChange(change)]), 'notify');
  }

  async announceAlerts(alerts: readonly UserAlert[]): Promise<void> {
    for (const alert of alerts) this.assertOwnUser(alert.userId);
    if (alerts.length > 0) this.#write(notifyAllQuery(alerts.map(encodeAlert)), 'notify');
  }

  async readNotificationSettings(): Promise<NotificationSettings | null> {
    if (this.#settings !== undefined) return this.#settings;
    const rows = await this.#read(sql<{ settings: unknown }>`select notification_settings as settings from users where id = ${this.userId}`);
    return rows[0] === undefined ? null : notificationSettingsFromSql(rows[0].settings);
  }

  async readChangesSince(watermarks: Readonly<Record<RecordType, bigint>>, limit: number): Promise<ChangesSince> {
    return changesFrom(await this.#read(readAllChangesQuery(this.userId, watermarks, Math.max(0, limit))), limit);
  }

  /**
   * `readChangesSince` as the unit's last statement: it goes with BEGIN, the lock and COMMIT in one
   * batch (one round trip), and the unit has committed when it answers (`SyncStore.readChangesSince`).
   */
  async readChangesAndCommit(watermarks: Readonly<Record<RecordType, bigint>>, limit: number): Promise<ChangesSince> {
    const rows = await this.#read(readAllChangesQuery(this.userId, watermarks, Math.max(0, limit)), [rawPart('commit')]);
    this.#finished = true;
    return changesFrom(rows, limit);
  }

  async prefetch(wanted: UidsByType, keys: readonly ReceiptKey[], ahead: ReserveRequest = {}): Promise<Prefetched> {
    const rows = perRecordType((): RecordRow[] => []);
    const receipts: PushReceipt[] = [];
    const drawn: { k: string; n: string }[] = [];
    const asked = askedCounts(ahead);
    const counts = reserveCounts(asked);
    // A push that may make a conflict (it draws a conflict id ahead) reads the user's settings with
    // its rows: its alerts are decided on them, and a read of their own would be one more round trip.
    const withSettings = this.#settings === undefined && asked.conflictIds > 0;
    const raw = await this.#read(lockRowsAndReceiptsQuery(this.userId, wanted, keys, counts, withSettings));
    if (withSettings) this.#settings = null;
    for (const r of raw) {
      if (r.res_k === SETTINGS_ROW) {
        this.#settings = notificationSettingsFromSql(r.rec);
      } else if (r.res_k !== null) {
        for (const n of r.res_n as string[]) drawn.push({ k: String(r.res_k), n });
      } else if (r.t === null) {
        receipts.push(receiptFromSql(r.r_entity, r.r_uid, r.r_fingerprint, r.r_result));
      } else {
        const type = r.t as RecordType;
        rows[type].push(recordFromSql(type, r.rec as SqlRecordRow));
      }
    }
    // Drawn after everything handed out so far: it replaces what an earlier read drew ahead.
    if (counts.some((n) => n > 0)) this.#ahead = new DrawnAhead(reservedFrom(drawn));
    // Each CTE reads in id order; the UNION ALL keeps branch order, but order once more to be sure.
    for (const list of Object.values(rows)) list.sort((a, b) => a.id - b.id);
    return { rows, receipts };
  }

  private async selectRecords(type: RecordType, condition: RawBuilder<unknown>, tail: RawBuilder<unknown>): Promise<RecordRow[]> {
    const rows = await this.#read(recordQuery(type, this.userId, condition, tail));
    return rows.map((r) => recordFromSql(type, r));
  }

  private assertOwnUser(userId: number): void {
    if (userId !== this.userId) throw new Error('a unit of work only writes rows of its own user');
  }
}

/** The answer of the pull statement (`readAllChangesQuery`): its closing row (bound, purge mark, newest conflict) and each type's rows. */
function changesFrom(raw: readonly SqlRecordRow[], limit: number): ChangesSince {
  const wanted = Math.max(0, limit);
  const read = perRecordType((): PulledRow[] => []);
  let bound = 0n;
  let purgedThrough = 0n;
  let newestConflictId: number | null = null;
  for (const r of raw) {
    if (r.t === null) {
      bound = BigInt(String(r.bound));
      purgedThrough = BigInt(String(r.purged));
      newestConflictId = r.conflict === null ? null : Number(r.conflict);
      continue;
    }
    read[r.t as RecordType].push({ version: String(r.version), wire: String(r.wire) });
  }
  const rows = perRecordType((type): EncodedChanges => pulledPage(read[type], wanted));
  return { bound, rows, purgedThrough, newestConflictId };
}

/** One row of the pull statement: a record's version (decimal text) and its wire JSON. */
interface PulledRow {
  readonly version: string;
  readonly wire: string;
}

/** Whether decimal `a` (no leading zeros, as PostgreSQL writes a bigint) is below decimal `b`. */
const decimalBelow = (a: string, b: string): boolean => a.length < b.length || (a.length === b.length && a < b);

/**
 * A type's page from its rows of the pull statement (`readAllChangesQuery`): the first `wanted`,
 * by version, with their wire JSON passed on as text; a row past them only tells that more follow.
 * Each branch of the statement reads in version order and the UNION ALL keeps it, so the rows
 * come ordered; a read that did not would be sorted here.
 */
export function pulledPage(rows: PulledRow[], wanted: number): EncodedChanges {
  if (rows.some((r, i) => i > 0 && !decimalBelow(rows[i - 1]!.version, r.version))) {
    rows.sort((a, b) => (decimalBelow(a.version, b.version) ? -1 : 1));
  }
  const page = rows.length > wanted ? rows.slice(0, wanted) : rows;
  const last = page.at(-1);
  return { lastVersion: last === undefined ? null : BigInt(last.version), more: rows.length > wanted, wire: page.map((r) => r.wire) };
}
