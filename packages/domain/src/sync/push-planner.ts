import type { ConflictRecord, ReceiptKey, ReserveRequest, RowWrite, SyncUnitOfWork } from '../ports/sync-store.js';
import { perRecordType } from '../records/per-record-type.js';
import { referenceFields } from '../records/field-tables.js';
import { fieldsOfWireRecord, completeFields } from '../records/snapshot.js';
import { ENTITY_TYPE, RECORD_TYPES, type FieldValues, type RecordType, type WireRecord } from '../records/types.js';
import { followMoves, followSplits, MOVE_INPUTS, ruleEnds, type SeriesState } from '../calendar/occurrence-edits.js';
import { calendarLeft } from '../records/calendar-move.js';
import { decidePushItem, type LoserSpec } from './decide-push-item.js';
import { countPerType, reservedIdTaker } from './reserved-ids.js';
import { decideRestore } from './decide-restore.js';
import { type CheckedPushItem, checkPushItem } from './fingerprint.js';
import { RowOverlay } from './row-overlay.js';
import type { ConflictDto, ItemResult, PushChangeset, PushItem, PushResponse } from './types.js';

/** A result whose id and version may still be placeholders, or a final result. */
type PendingResult =
  | { readonly type: RecordType; readonly final: ItemResult }
  | { readonly type: RecordType; readonly sameAs: number }
  | {
      readonly type: RecordType;
      readonly uid: string;
      readonly status: 'created' | 'updated' | 'deleted' | 'conflict';
      readonly id: number | null;
      readonly version: bigint | null;
      readonly conflict: number | null;
    };

interface PendingConflict {
  readonly type: RecordType;
  readonly uid: string;
  readonly winnerVersion: bigint;
  readonly loser: LoserSpec;
}

/** A receipt's key as one string (push-planner and GroupPrefetch look receipts up by it). */
export const receiptKey = (type: RecordType, uid: string, fingerprint: string): string => `${type}\u0000${uid}\u0000${fingerprint}`;

/** Turns a stored conflict into its wire form. */
export function toConflictDto(c: ConflictRecord): ConflictDto {
  return {
    conflictId: c.conflictId,
    entityType: ENTITY_TYPE[c.type],
    entityUid: c.uid,
    winnerVersion: c.winnerVersion.toString(),
    loserSnapshot: c.loserSnapshot,
    createdAt: c.createdAt,
    resolvedAt: c.resolvedAt,
  };
}

/** What a committed plan produced. */
export interface PlanOutcome {
  readonly results: { type: RecordType; result: ItemResult }[];
  readonly conflicts: ConflictDto[];
  readonly versionOf: (type: RecordType, uid: string) => bigint | null;
  /** The highest version written, null when the plan changed no row (nothing to notify). */
  readonly newestWritten: bigint | null;
}

/** What a push reads before its items are planned (`PushPlanner.prefetch`), and its items' checked fields. */
export interface PrefetchRequest {
  /** Per type, the items' uids and the parents their fields name. */
  readonly wanted: Readonly<Record<RecordType, ReadonlySet<string>>>;
  /** The receipt keys of the items that validate. */
  readonly keys: readonly ReceiptKey[];
  /** What `commit` most often reserves: a version and a row id per item, and one conflict id. */
  readonly ahead: ReserveRequest;
  /** Each item's checked fields and fingerprint, so the planner neither validates nor hashes again. */
  readonly checked: ReadonlyMap<PushItem, CheckedPushItem>;
}

/** The prefetch of `changeset`: its rows, parents and receipts, and the reservation its commit most likely needs. */
export function prefetchRequest(changeset: PushChangeset): PrefetchRequest {
  const keys: ReceiptKey[] = [];
  const wanted = perRecordType(() => new Set<string>());
  const checkedItems = new Map<PushItem, CheckedPushItem>();
  for (const type of RECORD_TYPES) {
    for (const item of changeset[type] ?? []) {
      wanted[type].add(item.uid);
      const checked = checkPushItem(type, item);
      checkedItems.set(item, checked);
      const { fingerprint } = checked;
      if (fingerprint !== null) keys.push({ type, uid: item.uid, fingerprint });
      if (item.op !== 'upsert' || typeof item.fields !== 'object' || item.fields === null) continue;
      for (const spec of referenceFields(type)) {
        const target = item.fields[spec.name];
        if (typeof target === 'string' && spec.ref !== undefined) wanted[spec.ref].add(target);
      }
    }
  }
  // Drawn with the read (no round trip of its own): what `commit` most often reserves. A delete's
  // cascade, a default's demotion or more conflicts reserve the rest then.
  const items = perRecordType((type) => changeset[type]?.length ?? 0);
  const total = RECORD_TYPES.reduce((sum, type) => sum + items[type], 0);
  return { wanted, keys, ahead: { versions: total, rowIds: items, conflictIds: Math.min(total, 1) }, checked: checkedItems };
}

/**
 * Plans pushed items (and restores) inside one unit of work: each item is decided in order on a
 * `RowOverlay`, then `commit` takes the versions, writes the rows, conflicts and receipts. One
 * planner per unit of work (one per push, one per restore).
 */
export class PushPlanner {
  readonly #uow: SyncUnitOfWork;
  readonly #now: string;
  readonly #overlay: RowOverlay;
  readonly #results: PendingResult[] = [];
  readonly #conflicts: PendingConflict[] = [];
  readonly #stored = new Map<string, unknown>();
  readonly #batchReceipts = new Map<string, number>();
  readonly #toSave: { type: RecordType; uid: string; fingerprint: string; index: number }[] = [];
  /** Each prefetched item's checked fields and fingerprint, so `planItem` neither validates nor hashes again. */
  readonly #checked = new Map<PushItem, CheckedPushItem>();

  constructor(uow: SyncUnitOfWork, now: string) {
    this.#uow = uow;
    this.#now = now;
    this.#overlay = new RowOverlay(uow, now);
  }

  /**
   * Loads, in one store call, the rows and receipts the items of `changeset` name (`request`: what
   * `prefetchRequest` made of it, when the caller already has it).
   */
  async prefetch(changeset: PushChangeset, request: PrefetchRequest = prefetchRequest(changeset)): Promise<void> {
    for (const [item, checked] of request.checked) this.#checked.set(item, checked);
    const missing = perRecordType((type) => this.#overlay.missing(type, request.wanted[type]));
    const found = await this.#uow.prefetch(missing, request.keys, request.ahead);
    for (const type of RECORD_TYPES) if (missing[type].length > 0) this.#overlay.loaded(type, missing[type], found.rows[type]);
    for (const r of found.receipts) this.#stored.set(receiptKey(r.type, r.uid, r.fingerprint), r.result);
  }

  /** Decides one item on the overlay; its result is produced by `commit`. */
  async planItem(type: RecordType, item: PushItem): Promise<void> {
    const checked = this.#checked.get(item) ?? checkPushItem(type, item);
    const { fingerprint } = checked;
    const key = fingerprint === null ? null : receiptKey(type, item.uid, fingerprint);
    if (key !== null) {
      const earlier = this.#batchReceipts.get(key);
      if (earlier !== undefined) return void this.#results.push({ type, sameAs: earlier });
      if (this.#stored.has(key)) return void this.#results.push({ type, final: this.#stored.get(key) as ItemResult });
    }
    await this.#prepare(type, item);
    const decision = decidePushItem({ type, item, view: this.#overlay, patch: checked.patch });
    if (decision.kind === 'error') {
      return void this.#results.push({ type, final: { uid: item.uid, status: 'error', error: decision.error } });
    }
    for (const change of decision.writes) this.#overlay.apply(change);
    const reported = decision.report ? this.#overlay.get(decision.report.type, decision.report.uid) : null;
    // After the item's own result: a device that pushed an edit a split moves gets the moved row with its pull.
    if (type === 'events') await this.#settleSeries(item.uid);
    let conflict: number | null = null;
    if (decision.loser && reported) {
      conflict = this.#conflicts.length;
      this.#conflicts.push({ type, uid: item.uid, winnerVersion: reported.version, loser: decision.loser });
    }
    const index = this.#results.length;
    this.#results.push({
      type,
      uid: decision.report?.uid ?? item.uid,
      status: decision.status,
      id: reported?.id ?? null,
      version: reported?.version ?? null,
      conflict,
    });
    if (key !== null && fingerprint !== null) {
      this.#batchReceipts.set(key, index);
      this.#toSave.push({ type, uid: item.uid, fingerprint, index });
    }
  }

  async #prepare(type: RecordType, item: PushItem): Promise<void> {
    await this.#overlay.load(type, [item.uid]);
    if (item.op === 'delete') return this.#overlay.loadDescendants(type, item.uid);
    await this.#overlay.loadReferences(type, item.fields);
    if (type === 'calendars') await this.#overlay.loadDefaults();
  }

  /** Plans the restore of a conflict's loser snapshot; returns nothing until `commit`. */
  async planRestore(conflict: ConflictRecord): Promise<void> {
    const fields = fieldsOfWireRecord(conflict.type, conflict.loserSnapshot);
    await this.#overlay.load(conflict.type, [conflict.uid]);
    await this.#overlay.loadReferences(conflict.type, fields);
    if (conflict.type === 'calendars') await this.#overlay.loadDefaults();
    for (const change of decideRestore(conflict.type, conflict.uid, fields, this.#overlay)) this.#overlay.apply(change);
    if (conflict.type === 'events') await this.#settleSeries(conflict.uid);
  }

  /**
   * After a write of event `uid`, what its series implies for other rows:
   * - an override is in its series' calendar: one written with another is put in the series'
   *   (a device that made it before the series moved), and a series that moves to another calendar
   *   takes its live overrides along;
   * - for the series the event is, overrides or continues: occurrence edits made before an "all
   *   events" move of it follow the move (`followMoves`), then those of a split series that belong
   *   to its continuation move there (`followSplits`).
   * Loads nothing for a single event that stays in its calendar.
   */
  async #settleSeries(uid: string): Promise<void> {
    const row = this.#overlay.get('events', uid);
    if (row === null || row.deleted !== null) return;
    const f = row.fields;
    if (typeof f.recurringEventUid === 'string') {
      await this.#overlay.load('events', [f.recurringEventUid]);
      const series = this.#overlay.get('events', f.recurringEventUid);
      if (series !== null && series.deleted === null && series.fields.calendarUid !== f.calendarUid) this.#rewrite(uid, { calendarUid: series.fields.calendarUid ?? null });
    } else if (calendarLeft(this.#overlay.stored('events', uid), row) !== undefined) {
      await this.#overlay.loadReferencing('events', 'recurringEventUid', [uid]);
      for (const o of this.#overlay.liveReferencing('events', 'recurringEventUid', uid)) {
        if (o.fields.calendarUid !== f.calendarUid) this.#rewrite(o.uid, { calendarUid: f.calendarUid ?? null });
      }
    }
    const candidates = [f.recurringEventUid, f.splitFromUid, f.rrule != null ? uid : null].filter((x): x is string => typeof x === 'string');
    for (const seriesUid of new Set(candidates)) {
      await this.#overlay.load('events', [seriesUid]);
      const series = this.#overlay.get('events', seriesUid);
      if (series === null || series.deleted !== null) continue;
      // The series itself when what its keys follow changed; an override of it, that override alone.
      const own = seriesUid === uid;
      const follow = own ? MOVE_INPUTS.some((k) => this.#overlay.stored('events', uid)?.fields[k] !== f[k]) : seriesUid === f.recurringEventUid;
      if (series.fields.moves != null && follow) {
        const followed = followMoves(await this.#seriesState(seriesUid), own ? undefined : uid);
        if (followed.seriesExdate !== undefined) this.#rewrite(seriesUid, { exdate: followed.seriesExdate });
        for (const o of followed.overrides) this.#rewrite(o.uid, o.fields);
      }
      if (!ruleEnds(series.fields.rrule)) continue;
      await this.#overlay.loadReferencing('events', 'splitFromUid', [seriesUid]);
      const continuations = this.#overlay.liveReferencing('events', 'splitFromUid', seriesUid);
      if (continuations.length === 0) continue;
      const moved = followSplits(await this.#seriesState(seriesUid), continuations);
      if (moved.seriesExdate !== undefined) this.#rewrite(seriesUid, { exdate: moved.seriesExdate });
      for (const o of moved.overrides) this.#rewrite(o.uid, o.fields);
      for (const n of moved.continuations) this.#rewrite(n.uid, { exdate: n.exdate });
    }
  }

  /** A live series as the occurrence rules read it: its row, its live overrides and its calendar's zone, loaded. */
  async #seriesState(seriesUid: string): Promise<SeriesState> {
    const series = this.#overlay.get('events', seriesUid)!;
    await this.#overlay.loadReferencing('events', 'recurringEventUid', [seriesUid]);
    const calendarUid = String(series.fields.calendarUid);
    await this.#overlay.load('calendars', [calendarUid]);
    const zone = this.#overlay.get('calendars', calendarUid)?.fields.timezone;
    return { series, overrides: this.#overlay.liveReferencing('events', 'recurringEventUid', seriesUid), calendarZone: typeof zone === 'string' ? zone : null };
  }

  /** A live event changed by the server itself (not an item's decision): these fields over its current ones, a new version. */
  #rewrite(uid: string, fields: FieldValues): void {
    this.#overlay.apply({ type: 'events', uid, fields: { ...this.#overlay.get('events', uid)!.fields, ...fields }, deleted: false });
  }

  /**
   * Draws versions and ids in one store call, writes rows (demotions first), conflicts and
   * receipts, and returns the results in push order plus the conflicts this unit of work produced.
   */
  async commit(): Promise<PlanOutcome> {
    const count = this.#overlay.placeholderCount;
    const changed = this.#overlay.changedRows();
    const inserted = changed.filter((c) => !c.existed).map((c) => c.row);
    const reserved =
      count > 0 || this.#conflicts.length > 0 || inserted.length > 0
        ? await this.#uow.reserve({ versions: count, rowIds: countPerType(inserted), conflictIds: this.#conflicts.length })
        : null;
    const version = (v: bigint): bigint => (v < 0n ? reserved!.versions[Number(-v) - 1]! : v);
    const idMap = new Map<number, number>();
    const takeId = reserved === null ? null : reservedIdTaker(reserved.rowIds);
    const writes: RowWrite[] = changed.map(({ row, existed, leaves }) => {
      if (existed) return { kind: 'update', row: { ...row, version: version(row.version) }, ...(leaves === undefined ? {} : { leaves }) };
      const id = takeId!(row.type);
      idMap.set(row.id, id);
      return { kind: 'insert', row: { ...row, id, version: version(row.version) } };
    });
    if (writes.length > 0) await this.#uow.applyWrites(writes);
    const id = (n: number): number => (n < 0 ? idMap.get(n)! : n);

    const stored: ConflictRecord[] = this.#conflicts.map((c, i) => ({
      conflictId: reserved!.conflictIds[i]!,
      userId: this.#uow.userId,
      type: c.type,
      uid: c.uid,
      winnerVersion: version(c.winnerVersion),
      loserSnapshot: this.#loserSnapshot(c.type, c.loser, version, id),
      createdAt: this.#now,
      resolvedAt: null,
    }));
    if (stored.length > 0) await this.#uow.insertConflicts(stored.map(({ resolvedAt: _unresolved, ...c }) => c));

    const results: { type: RecordType; result: ItemResult }[] = [];
    for (const pending of this.#results) {
      if ('final' in pending) results.push({ type: pending.type, result: pending.final });
      else if ('sameAs' in pending) results.push({ type: pending.type, result: results[pending.sameAs]!.result });
      else {
        const result: { uid: string; status: typeof pending.status; id?: number; version: string | null; conflictId?: number } = {
          uid: pending.uid,
          status: pending.status,
          version: pending.version === null ? null : version(pending.version).toString(),
        };
        if (pending.id !== null) result.id = id(pending.id);
        if (pending.conflict !== null) result.conflictId = stored[pending.conflict]!.conflictId;
        results.push({ type: pending.type, result });
      }
    }
    if (this.#toSave.length > 0) {
      await this.#uow.saveReceipts(
        this.#toSave.map((r) => ({ type: r.type, uid: r.uid, fingerprint: r.fingerprint, result: results[r.index]!.result })),
      );
    }
    const versionOf = (type: RecordType, uid: string): bigint | null => {
      const row = this.#overlay.get(type, uid);
      return row === null ? null : version(row.version);
    };
    const newestWritten = writes.reduce<bigint | null>((max, w) => (max === null || w.row.version > max ? w.row.version : max), null);
    return { results, conflicts: stored.map(toConflictDto), versionOf, newestWritten };
  }

  #loserSnapshot(type: RecordType, loser: LoserSpec, version: (v: bigint) => bigint, id: (n: number) => number): WireRecord {
    return {
      ...completeFields(type, loser.fields),
      id: id(loser.row.id),
      uid: loser.row.uid,
      version: loser.version === null ? null : version(loser.version).toString(),
      deleted: null,
      createdAt: loser.row.createdAt,
      updatedAt: loser.row.updatedAt,
    };
  }
}

/** Groups planned results into the push response arrays. */
export function toPushResponse(results: readonly { type: RecordType; result: ItemResult }[], conflicts: ConflictDto[]): PushResponse {
  const response: PushResponse = { ...perRecordType((): ItemResult[] => []), conflicts };
  for (const { type, result } of results) response[type].push(result);
  return response;
}
