import type { EventSource } from '../calendar/occurrence.js';
import type { RecordRow, RecordType, WireRecord } from '../records/types.js';
import type { DataChange, UserAlert } from './change-feed.js';
import type { NotificationSettings } from './user-store.js';

/**
 * One write of a push plan. An insert carries an id drawn by `reserve` for its type. Updates
 * replace the row's whole state (fields, version, updatedAt, deleted) and are addressed by
 * (userId, type, uid) and the id the unit of work read.
 */
export interface RowWrite {
  readonly kind: 'insert' | 'update';
  readonly row: RecordRow;
  /**
   * Set on an update of a root event (no override) whose calendar changes: the calendar it leaves
   * (`movedEventOf`). The store keeps a departure of the root from that calendar at the row's new
   * version, and drops any departure it kept of the root from the calendar it arrives at (so a
   * root is never both in a calendar and departed from it).
   */
  readonly leaves?: string;
}

/**
 * A root event that left a calendar for another of the user's (a move), as that calendar's
 * readers see it: an object gone from the collection at `version`, the version of its last move
 * out. Kept as long as a tombstone is (`RetentionStore` removes both together).
 */
export interface Departure {
  readonly uid: string;
  readonly version: bigint;
  /** The root's `icalExtras` now (where it lives or lies deleted), so a reader can name the object as its collection listed it; null when it has none. */
  readonly icalExtras: string | null;
}

/** What `SyncUnitOfWork.reserve` is asked to draw: versions, new row ids per type, conflict ids (each 0 when absent). */
export interface ReserveRequest {
  readonly versions?: number;
  readonly rowIds?: Partial<Readonly<Record<RecordType, number>>>;
  readonly conflictIds?: number;
}

/** What `SyncUnitOfWork.reserve` drew: each list ascending, of the asked length (every type present). */
export interface Reserved {
  readonly versions: bigint[];
  readonly rowIds: Readonly<Record<RecordType, number[]>>;
  readonly conflictIds: number[];
}

/** A durable conflict record (docs/protocol.md), as stored. */
export interface ConflictRecord {
  readonly conflictId: number;
  readonly userId: number;
  readonly type: RecordType;
  readonly uid: string;
  /** Version of the row state that won (docs/protocol.md). */
  readonly winnerVersion: bigint;
  /** The losing state, with its uid and version (version may be null for a never-seen base). */
  readonly loserSnapshot: WireRecord;
  readonly createdAt: string;
  readonly resolvedAt: string | null;
}

/** A conflict record about to be inserted, with a conflict id drawn by `reserve`. */
export type NewConflict = Omit<ConflictRecord, 'resolvedAt'>;

/**
 * The stored outcome of an applied push item, keyed by (type, uid, fingerprint of op + baseVersion
 * + fields). `result` is the item result exactly as first returned (JSON-safe).
 */
export interface PushReceipt {
  readonly type: RecordType;
  readonly uid: string;
  /** The item's SHA-256 as 64 lowercase hex digits (`checkPushItem`); a store may keep its bytes. */
  readonly fingerprint: string;
  readonly result: unknown;
}

/** A receipt as it is looked up: its key without the stored result. */
export type ReceiptKey = Omit<PushReceipt, 'result'>;

/** The uids wanted of each record type: every type present, each list without repeats (an empty list wants nothing). */
export type UidsByType = Readonly<Record<RecordType, readonly string[]>>;

/** The answer of `SyncUnitOfWork.prefetch`: the rows found per type and the receipts found. */
export interface Prefetched {
  readonly rows: Readonly<Record<RecordType, RecordRow[]>>;
  readonly receipts: PushReceipt[];
}

/** A window of `SyncStore.readEventWindow`: what a calendar view of a window needs. */
export interface EventWindow {
  /** The zone of each live calendar that holds one of `events` (null when it has none): it applies to events without a zone of their own. */
  readonly calendarZones: ReadonlyMap<string, string | null>;
  /** Live events that may have an occurrence in the window (see `SyncStore.readEventWindow`), each with exactly the fields `OCCURRENCE_SOURCE_FIELDS` names. */
  readonly events: EventSource[];
}

/** The answer of `SyncStore.readEventWindow`. */
export interface EventWindowRead {
  /** The user's newest version (as `SyncStore.newestVersion`), read before the window. */
  readonly version: bigint;
  /** The window, read after `version` and so at least as new as it; null when `version` is the `unlessVersion` asked with. */
  readonly window: EventWindow | null;
}

/**
 * Which objects `readObjects` reads: a calendar's events, the events of every calendar the user has
 * or had (a record uid is the account's: CalDAV looks a name up across the calendars in one read),
 * or the user's tasks.
 */
export type ObjectScope = { readonly calendarUid: string } | { readonly allCalendars: true } | { readonly tasks: true };

/** The answer of `SyncUnitOfWork.readObjects`. */
export interface ObjectRows {
  /** The user's live calendars. */
  readonly calendars: RecordRow[];
  /** Roots (events that are no override, or tasks) of the scope, live and tombstones, and the overrides of those events. */
  readonly roots: RecordRow[];
  /** Live and tombstoned overrides of the events among `roots`. */
  readonly overrides: RecordRow[];
  /** Live and tombstoned reminders of `roots` and `overrides`. */
  readonly reminders: RecordRow[];
  /** For a calendar's scope, the roots that left it for another calendar and are not back (with `rootUids`, of those uids only); empty for other scopes. */
  readonly departures: Departure[];
}

/** The answer of `SyncStore.readObjectsChangedSince`: the objects that changed, and the user's newest version in the same snapshot. */
export interface ObjectChanges extends ObjectRows {
  /** The highest version of any of the user's rows (0n when none), as `SyncStore.newestVersion`. */
  readonly newestVersion: bigint;
  /** The user's purge horizon (`ChangesSince.purgedThrough`): a reader whose `since` is below it may have missed a delete or a departure. */
  readonly purgedThrough: bigint;
}

/** One object of `SyncStore.readObjectListing`: what a listing of a collection says of it, without its rows. */
export interface ListedObject {
  /** The root's uid. */
  readonly uid: string;
  /** Whether the root is a tombstone. */
  readonly deleted: boolean;
  /** The highest version of the root, its overrides and the reminders of both, tombstones included (what `readObjects` would answer). */
  readonly version: bigint;
  /** The root's `icalExtras` when they contain the text the read was asked for, else null. */
  readonly icalExtras: string | null;
}

/** The answer of `SyncStore.readObjectListing`. */
export interface ObjectListing {
  /** The user's live calendars (as `readObjects`). */
  readonly calendars: RecordRow[];
  /** Every root of the scope, live and tombstones, in id order. */
  readonly objects: ListedObject[];
  /** As `ObjectRows.departures`, with `icalExtras` only when they contain the text the read was asked for. */
  readonly departures: Departure[];
}

/** The answer of `SyncStore.readCollectionVersions`. */
export interface CollectionVersions {
  /** Per live calendar with any object or departure, the highest version of its roots, their overrides, the reminders of both (tombstones included) and its departures (absent: 0n). */
  readonly calendars: ReadonlyMap<string, bigint>;
  /** The same over the user's tasks and their reminders. */
  readonly tasks: bigint;
}

/**
 * One type's rows of a pull read, as the pull sends them: `wire` holds each row's wire record as
 * JSON text, by version, exactly the text `encodeWireRecord` makes of the stored row (the store
 * contract suite checks it for every record type). A SQL store may build the texts in its query,
 * so a pull neither builds nor re-encodes an object per row, and HTTP writes the texts as they are.
 */
export interface EncodedChanges {
  /** The version of the last row; null when there are none. */
  readonly lastVersion: bigint | null;
  /** Whether more rows of this type follow them (version above `lastVersion`, at most the bound). */
  readonly more: boolean;
  readonly wire: readonly string[];
}

/** The answer of `SyncUnitOfWork.readChangesSince`: the pull's upper bound and each type's rows. */
export interface ChangesSince {
  /** The global sequence's last issued value when the read began (0n when none was ever issued). */
  readonly bound: bigint;
  readonly rows: Readonly<Record<RecordType, EncodedChanges>>;
  /**
   * The user's purge horizon: the highest version of any of the user's tombstones that retention
   * removed (`RetentionStore`), 0n when none was. A reader whose watermark of some type is below it
   * may have missed a delete, so the sync engine answers it with a full snapshot.
   */
  readonly purgedThrough: bigint;
  /**
   * The greatest conflictId among the user's unresolved conflicts when the read began, null when
   * none is unresolved. Conflict ids of one user grow in the order of the user's transactions (they
   * are drawn under the per-user lock), so a device whose listing mark is at or above it has heard
   * of every unresolved conflict there is, and a pull can tell it so without a listing request.
   */
  readonly newestConflictId: number | null;
}

/**
 * Everything the sync engine may do inside one transaction that holds the caller's per-user lock.
 * All reads and writes are scoped to that user: no method can see or touch another user's rows.
 * Every method is required and has one shape; a store may answer each in as few round trips as it
 * likes. Guarantees of every implementation (checked by the store contract suite in testkit, run on
 * the in-memory store, PGlite and PostgreSQL):
 * - the per-user lock is held before the unit's first store call takes effect, so every read sees
 *   all earlier committed units of this user;
 * - reads see every write made earlier in the same unit of work;
 * - nothing is visible to other units of work before the whole unit commits;
 * - if the work throws, nothing of it persists;
 * - a write may take effect as late as the unit's next read or its end (PostgreSQL sends writes
 *   with the next statement it has to wait for); a write that breaks a constraint fails the unit
 *   (`inUserTransaction` rejects) and nothing of it persists.
 */
export interface SyncUnitOfWork {
  readonly userId: number;
  /**
   * The push prefetch: for every type, the rows (live or tombstone) with the wanted uids, locked
   * for update (`SELECT … FOR UPDATE`), each type's in id order, and the stored receipts matching
   * `receiptKeys`. Unknown uids and keys are simply absent from the answer.
   *
   * `ahead` says what this unit's next `reserve` will probably ask. A store may draw it with this
   * read (no round trip of its own) and answer a later `reserve` from it when that covers the
   * request; what `reserve` guarantees is unchanged, and versions a unit is handed still strictly
   * increase from one `reserve` call to the next. A store may ignore it; one that uses it keeps
   * what it drew in a `DrawnAhead`.
   */
  prefetch(wanted: UidsByType, receiptKeys: readonly ReceiptKey[], ahead?: ReserveRequest): Promise<Prefetched>;
  /** Live rows of `type` whose reference field `field` (wire name) holds one of `parentUids`, locked, in id order. */
  findLiveReferencing(type: RecordType, field: string, parentUids: readonly string[]): Promise<RecordRow[]>;
  /** The user's live calendars with isDefault true, oldest id first, locked. */
  findLiveDefaultCalendars(): Promise<RecordRow[]>;
  /**
   * Draws, in one call, new versions from the one global sequence (strictly increasing) and new
   * ids for rows of each type and for conflicts (ascending). No value is ever drawn twice, not even
   * after the unit that drew it rolled back (so a drawn id never meets another unit's row).
   */
  reserve(request: ReserveRequest): Promise<Reserved>;
  /**
   * Applies the writes in order (a set-based store may group them, but an update that clears
   * isDefault must land before one that sets it). Inserts use ids this unit drew with `reserve`.
   * Each (type, uid) appears at most once in a batch (one final state per row).
   */
  applyWrites(writes: readonly RowWrite[]): Promise<void>;
  /** Stores receipts; a key that already exists is left as it is. */
  saveReceipts(receipts: readonly PushReceipt[]): Promise<void>;
  /** Inserts conflict records under ids this unit drew with `reserve`. */
  insertConflicts(conflicts: readonly NewConflict[]): Promise<void>;
  /** The user's conflict with this id, locked; null when unknown or another user's. */
  lockConflict(conflictId: number): Promise<ConflictRecord | null>;
  /** Sets resolvedAt on the user's conflict. */
  markConflictResolved(conflictId: number, resolvedAt: string): Promise<void>;
  /**
   * Announces a change of this user on the `ChangeFeed` paired with the store: delivered to every
   * node once this unit commits, never if it rolls back (PostgreSQL: `NOTIFY` in the transaction).
   */
  announceChange(change: DataChange): Promise<void>;
  /**
   * Announces alerts of this user on the paired `ChangeFeed` (its subscribers' `alerted`),
   * delivered to every node once this unit commits and never if it rolls back, in the order given.
   */
  announceAlerts(alerts: readonly UserAlert[]): Promise<void>;
  /**
   * The user's notification settings as this unit reads them (null when the store keeps none for
   * the user): what a push that made conflicts decides its alerts on. A store may send the writes
   * queued so far with this read, or answer the settings it read with the unit's `prefetch` (when
   * that read's `ahead` drew a conflict id, the push may make a conflict).
   */
  readNotificationSettings(): Promise<NotificationSettings | null>;
  /**
   * The pull read: `bound` is the global sequence's last issued value, read under the per-user
   * lock; then for every type the rows (live and tombstones) with
   * `watermarks[type] < version <= bound`, ascending by version, at most `limit` each (none when
   * the watermark is at or past the bound, or `limit` is 0), as `EncodedChanges` (their wire
   * JSON, and whether more such rows follow); and the user's purge horizon, read in the same
   * snapshot as the rows.
   */
  readChangesSince(watermarks: Readonly<Record<RecordType, bigint>>, limit: number): Promise<ChangesSince>;
  /**
   * The read behind iCalendar objects (CalDAV collections and resources, subscription feeds): the
   * user's live calendars, and in `scope` the roots with the uids `rootUids` (all roots when
   * absent), their overrides and the reminders of both, tombstones included (an object's ETag is
   * the highest version among all of them, so it never goes back). Not locked; each list in id order.
   */
  readObjects(scope: ObjectScope, rootUids?: readonly string[]): Promise<ObjectRows>;
}

/**
 * Storage of synchronised records. `inUserTransaction` runs `work` in one READ COMMITTED
 * transaction that first takes the per-user lock (`pg_advisory_xact_lock(userId)`), so units of
 * work of one user serialize and different users never block each other. Versions of all types
 * and users come from one global sequence.
 */
export interface SyncStore {
  inUserTransaction<T>(userId: number, work: (uow: SyncUnitOfWork) => Promise<T>): Promise<T>;
  /**
   * `SyncUnitOfWork.readChangesSince` (the same answer) in a unit of work of its own: one
   * transaction that takes the user's lock before it reads, so `bound` is the sequence's last
   * value under the lock version assignment takes (a pull page). PostgreSQL: one round trip
   * (BEGIN, the lock, the read and COMMIT in one batch), where a unit that reads and then commits takes two.
   */
  readChangesSince(userId: number, watermarks: Readonly<Record<RecordType, bigint>>, limit: number): Promise<ChangesSince>;
  /**
   * `SyncUnitOfWork.readObjects` (the same answer) outside any unit of work: one read of one
   * consistent snapshot of what is committed, without the per-user lock, so it neither waits for
   * nor holds up the user's pushes (CalDAV reads before every PUT, and calendar apps send them
   * several at a time). PostgreSQL: one statement, one round trip.
   */
  readObjects(userId: number, scope: ObjectScope, rootUids?: readonly string[]): Promise<ObjectRows>;
  /**
   * `readObjects` of only the objects that changed after version `since`: the roots in `scope` of
   * which the root, an override or a reminder (live or tombstone) has a version above `since`,
   * each whole (all its overrides and reminders), so its ETag is right, and the departures with a
   * version above `since`; with the user's newest version and purge horizon, read in the same
   * snapshot, lock-free like `readObjects`. A sync-collection from a token reads what changed
   * (through the version indexes), not the collection.
   */
  readObjectsChangedSince(userId: number, scope: ObjectScope, since: bigint): Promise<ObjectChanges>;
  /**
   * What `readObjects` of a whole scope says of each object without reading its rows out: per
   * root its uid, whether it is a tombstone, the highest version among its rows, and its
   * `icalExtras` only when they contain `extrasHolding` (the one field of a root a listing may
   * need, and seldom: CalDAV keeps a resource name there when it is not `<uid>.ics`); with the live
   * calendars. Lock-free like `readObjects`, one snapshot. A calendar app's listing of a
   * collection (PROPFIND Depth 1, a sync-collection without calendar data) reads this.
   */
  readObjectListing(userId: number, scope: ObjectScope, extrasHolding: string): Promise<ObjectListing>;
  /**
   * The version of every collection of the user at once, each what the highest version among the
   * rows `readObjects` of its scope answers would be (a CalDAV CTag and sync token), without
   * reading those rows out; lock-free like `readObjects`. A calendar app's PROPFIND of the
   * calendar home asks it of every calendar at every sync.
   */
  readCollectionVersions(userId: number): Promise<CollectionVersions>;
  /**
   * The read behind occurrence queries, outside any unit of work and without the per-user lock:
   * first the user's newest version; then, unless it equals `unlessVersion` (the version a caller
   * already holds this window at), every live event that may occur in [from, to) (ISO instants):
   * each series (rrule set) and override, whatever its times, and each other event whose start is
   * before `to` plus a day and whose end is after `from` minus a day (an all-day date lands up to
   * 14 hours either side of UTC in a viewer's zone), in id order, with only the fields the expander
   * reads; and the zones of their live calendars. PostgreSQL: one round trip when the version is
   * unchanged, two otherwise.
   */
  readEventWindow(userId: number, from: string, to: string, unlessVersion?: bigint): Promise<EventWindowRead>;
  /** The user's unresolved conflicts with id > afterId, ascending, at most `limit`; lock-free like `readObjects`. */
  listUnresolvedConflicts(userId: number, afterId: number, limit: number): Promise<ConflictRecord[]>;
  /** The highest version of any of the user's rows (live or tombstone), 0n when the user has none; lock-free like `readObjects`. */
  newestVersion(userId: number): Promise<bigint>;
}
