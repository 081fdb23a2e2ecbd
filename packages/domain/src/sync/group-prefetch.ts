import type {
  ChangesSince,
  ConflictRecord,
  NewConflict,
  ObjectRows,
  ObjectScope,
  Prefetched,
  PushReceipt,
  ReceiptKey,
  Reserved,
  ReserveRequest,
  RowWrite,
  SyncUnitOfWork,
  UidsByType,
} from '../ports/sync-store.js';
import type { DataChange, UserAlert } from '../ports/change-feed.js';
import type { NotificationSettings } from '../ports/user-store.js';
import { perRecordType } from '../records/per-record-type.js';
import { RECORD_TYPES, type RecordRow, type RecordType } from '../records/types.js';
import { askedCounts } from './reserved-ids.js';
import { receiptKey, type PrefetchRequest } from './push-planner.js';

const keyOf = (k: ReceiptKey): string => receiptKey(k.type, k.uid, k.fingerprint);

/**
 * The unit of work of a group of pushes (group commit), whose prefetches are read together in one
 * store call (`GroupPrefetch.read`): every push's rows, parents and receipts, locked, with the
 * values all their commits most likely reserve drawn ahead. Each push's planner then prefetches
 * from what that read found, kept current by the unit's own writes: a row a push writes replaces
 * the row read, a receipt a push saves is found by the pushes after it. So each push sees what it
 * would see if its prefetch ran after the pushes before it, without a round trip of its own. What
 * was not read together (rows a planner asks for later) is read from the store; every other call
 * goes to the unit itself.
 */
export class GroupPrefetch implements SyncUnitOfWork {
  /** Per type, each uid read or written: its row, or null when the read found none. */
  readonly #rows = perRecordType(() => new Map<string, RecordRow | null>());
  /** Each receipt key read or saved: its stored result, or null when the read found none. */
  readonly #receipts = new Map<string, unknown>();

  private constructor(private readonly uow: SyncUnitOfWork) {}

  get userId(): number {
    return this.uow.userId;
  }

  /** Reads the prefetches of `requests` in one store call, drawing what they draw ahead together. */
  static async read(uow: SyncUnitOfWork, requests: readonly PrefetchRequest[]): Promise<GroupPrefetch> {
    const group = new GroupPrefetch(uow);
    const wanted = perRecordType((type) => [...new Set(requests.flatMap((r) => [...r.wanted[type]]))]);
    const keys = [...new Map(requests.flatMap((r) => r.keys.map((k) => [keyOf(k), k] as const))).values()];
    const asked = requests.map((r) => askedCounts(r.ahead));
    const sum = (count: (a: (typeof asked)[number]) => number): number => asked.reduce((n, a) => n + count(a), 0);
    const ahead: ReserveRequest = {
      versions: sum((a) => a.versions),
      rowIds: perRecordType((type) => sum((a) => a.rowIds[type])),
      conflictIds: sum((a) => a.conflictIds),
    };
    group.#remember(wanted, keys, await uow.prefetch(wanted, keys, ahead));
    return group;
  }

  #remember(wanted: UidsByType, keys: readonly ReceiptKey[], found: Prefetched): void {
    for (const type of RECORD_TYPES) {
      for (const uid of wanted[type]) if (!this.#rows[type].has(uid)) this.#rows[type].set(uid, null);
      for (const row of found.rows[type]) this.#rows[type].set(row.uid, row);
    }
    for (const key of keys) if (!this.#receipts.has(keyOf(key))) this.#receipts.set(keyOf(key), null);
    for (const receipt of found.receipts) this.#receipts.set(keyOf(receipt), receipt.result);
  }

  async prefetch(wanted: UidsByType, receiptKeys: readonly ReceiptKey[]): Promise<Prefetched> {
    // What the group read did not cover is read now (without a hint: the group's draw stands).
    const unread = perRecordType((type) => wanted[type].filter((uid) => !this.#rows[type].has(uid)));
    const unreadKeys = receiptKeys.filter((k) => !this.#receipts.has(keyOf(k)));
    if (unreadKeys.length > 0 || RECORD_TYPES.some((type) => unread[type].length > 0)) this.#remember(unread, unreadKeys, await this.uow.prefetch(unread, unreadKeys));
    const rows = perRecordType((type: RecordType) =>
      wanted[type]
        .map((uid) => this.#rows[type].get(uid) ?? null)
        .filter((row): row is RecordRow => row !== null)
        .sort((a, b) => a.id - b.id),
    );
    const receipts: PushReceipt[] = [];
    for (const key of receiptKeys) {
      const result = this.#receipts.get(keyOf(key));
      if (result !== null && result !== undefined) receipts.push({ ...key, result });
    }
    return { rows, receipts };
  }

  async applyWrites(writes: readonly RowWrite[]): Promise<void> {
    await this.uow.applyWrites(writes);
    for (const { row } of writes) this.#rows[row.type].set(row.uid, row);
  }

  async saveReceipts(receipts: readonly PushReceipt[]): Promise<void> {
    await this.uow.saveReceipts(receipts);
    // A key that already exists is left as it is, as the store leaves it.
    for (const receipt of receipts) if ((this.#receipts.get(keyOf(receipt)) ?? null) === null) this.#receipts.set(keyOf(receipt), receipt.result);
  }

  findLiveReferencing(type: RecordType, field: string, parentUids: readonly string[]): Promise<RecordRow[]> {
    return this.uow.findLiveReferencing(type, field, parentUids);
  }

  findLiveDefaultCalendars(): Promise<RecordRow[]> {
    return this.uow.findLiveDefaultCalendars();
  }

  reserve(request: ReserveRequest): Promise<Reserved> {
    return this.uow.reserve(request);
  }

  insertConflicts(conflicts: readonly NewConflict[]): Promise<void> {
    return this.uow.insertConflicts(conflicts);
  }

  lockConflict(conflictId: number): Promise<ConflictRecord | null> {
    return this.uow.lockConflict(conflictId);
  }

  markConflictResolved(conflictId: number, resolvedAt: string): Promise<void> {
    return this.uow.markConflictResolved(conflictId, resolvedAt);
  }

  announceChange(change: DataChange): Promise<void> {
    return this.uow.announceChange(change);
  }

  announceAlerts(alerts: readonly UserAlert[]): Promise<void> {
    return this.uow.announceAlerts(alerts);
  }

  readNotificationSettings(): Promise<NotificationSettings | null> {
    return this.uow.readNotificationSettings();
  }

  readChangesSince(watermarks: Readonly<Record<RecordType, bigint>>, limit: number): Promise<ChangesSince> {
    return this.uow.readChangesSince(watermarks, limit);
  }

  readObjects(scope: ObjectScope, rootUids?: readonly string[]): Promise<ObjectRows> {
    return this.uow.readObjects(scope, rootUids);
  }
}
