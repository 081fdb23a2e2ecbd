import { ZERO_WATERMARKS, type CursorCodec, type Watermarks } from '../cursor/cursor-codec.js';
import { expandOccurrences } from '../calendar/expand-occurrences.js';
import { EventWindowCache } from './event-window-cache.js';
import type { OccurrencePage } from '../calendar/occurrence.js';
import { checkOccurrenceWindow } from '../calendar/occurrence-window.js';
import { DomainError } from '../errors.js';
import type { AlertNotifier, ChangeNotifier, ConflictAlert, DataChange } from '../ports/change-feed.js';
import { conflictAlertsOf } from '../reminders/conflict-alerts.js';
import type { Clock } from '../ports/clock.js';
import type { CollectionVersions, ObjectChanges, ObjectListing, ObjectRows, ObjectScope, SyncStore, SyncUnitOfWork } from '../ports/sync-store.js';
import { itemError } from '../records/item-error.js';
import { ENTITY_TYPE, RECORD_TYPES, type RecordType, type WireRecord } from '../records/types.js';
import { clampToBounds, PAGE_LIMITS } from '../rules/page-limits.js';
import { GroupPrefetch } from './group-prefetch.js';
import { prefetchRequest, PushPlanner, toConflictDto, toPushResponse, type PlanOutcome, type PrefetchRequest } from './push-planner.js';
import type { ConflictPage, EncodedPullResponse, ItemResult, OccurrenceQuery, PullResponse, PushChangeset, PushResponse, ResolveResponse, SyncApi } from './types.js';

/** Dependencies of `SyncService`. */
export interface SyncServiceDeps {
  readonly store: SyncStore;
  readonly clock: Clock;
  readonly cursorCodec: CursorCodec;
  /**
   * Told about every storage failure that one item caused (the item then gets a per-item error):
   * such a failure is a bug or a gap in validation, so the composition root logs it.
   */
  readonly onItemFailure?: (failure: ItemFailure) => void;
  /** Told of every committed change after its commit (device push notifications); none when absent. */
  readonly notifier?: ChangeNotifier;
  /**
   * Told of every conflict alert after the push that made it committed (FCM, metrics); the streams
   * already have it from the unit of work (`announceAlerts`). None when absent.
   */
  readonly alerts?: AlertNotifier;
  /**
   * Told how many pushes of one user each unit of work plans together (group commit; 1 for a push
   * alone), before it runs: how well group commit shares its units (a metric). A group whose unit
   * fails, so that its pushes run again one by one, is told once, as planned. None when absent.
   */
  readonly onGroup?: (pushes: number) => void;
}

/** A storage failure caused by one pushed item (see `SyncServiceDeps.onItemFailure`). */
export interface ItemFailure {
  readonly userId: number;
  readonly type: RecordType;
  readonly uid: string;
  readonly error: unknown;
}

/** The per-item answer to an item whose unit of work failed in storage (not retryable: it would fail again). */
const NOT_STORED = itemError('INVALID_FIELD', 'the item could not be stored (the server logged the cause)');

/**
 * Whether a cursor may have missed a tombstone that retention removed: some type was read past
 * zero (a zero watermark has nothing locally to remove) but not up to the user's purge horizon.
 */
export function predatesPurge(watermarks: Watermarks, purgedThrough: bigint): boolean {
  return RECORD_TYPES.some((type) => watermarks[type] > 0n && watermarks[type] < purgedThrough);
}

/** What a unit of work announced in its transaction: the change it wrote (null: none) and its conflict alerts. */
interface Announced {
  readonly change: DataChange | null;
  readonly alerts: readonly ConflictAlert[];
}

const NOTHING_ANNOUNCED: Announced = { change: null, alerts: [] };

/** At most this many pushes are committed as one group (a bound on the group's transaction). */
export const MAX_PUSH_GROUP = 16;

/** A push waiting for its user's running pushes to finish (group commit). */
interface QueuedPush {
  readonly changeset: PushChangeset;
  readonly deviceUid: string | null;
  /** Its items checked and hashed on arrival (`prefetchRequest`): that needs no rows, so it need not wait for the user's turn. */
  readonly request: PrefetchRequest;
  resolve(response: PushResponse): void;
  reject(error: unknown): void;
}

/** The sync engine behind `/api/sync/*`: push, pull, and conflict listing and resolution. */
export class SyncService implements SyncApi {
  readonly #store: SyncStore;
  readonly #clock: Clock;
  readonly #codec: CursorCodec;
  readonly #onItemFailure: ((failure: ItemFailure) => void) | undefined;
  readonly #notifier: ChangeNotifier | undefined;
  readonly #alerts: AlertNotifier | undefined;
  readonly #onGroup: ((pushes: number) => void) | undefined;
  /** Recent occurrence reads, valid while the user's newest version is unchanged. */
  readonly #windows = new EventWindowCache();
  /** Per user with pushes under way in this process: the pushes that arrived meanwhile, in arrival order. */
  readonly #queued = new Map<number, QueuedPush[]>();

  constructor(deps: SyncServiceDeps) {
    this.#store = deps.store;
    this.#clock = deps.clock;
    this.#codec = deps.cursorCodec;
    this.#onItemFailure = deps.onItemFailure;
    this.#notifier = deps.notifier;
    this.#alerts = deps.alerts;
    this.#onGroup = deps.onGroup;
  }

  /**
   * Pushes of one user are committed together (group commit): a push that arrives while pushes of
   * its user run in this process waits, and every push that waited is then planned and committed
   * in one unit of work, one after another in arrival order, each with its own planner, results,
   * receipts and announcement, so each answers exactly as if it had run alone in that order. If
   * that unit fails, each of its pushes runs again on its own: a failing push never fails the
   * pushes it was grouped with.
   */
  push(userId: number, changeset: PushChangeset, deviceUid: string | null = null): Promise<PushResponse> {
    return new Promise<PushResponse>((resolve, reject) => {
      // Checked and hashed now, while the pushes before it may still wait for the database.
      const push: QueuedPush = { changeset, deviceUid, request: prefetchRequest(changeset), resolve, reject };
      const waiting = this.#queued.get(userId);
      if (waiting !== undefined) return void waiting.push(push);
      this.#queued.set(userId, []);
      void this.#drain(userId, [push]);
    });
  }

  /** Runs `group`, then the pushes that queued meanwhile as the next group (at most MAX_PUSH_GROUP, oldest first), until none is left. */
  async #drain(userId: number, group: QueuedPush[]): Promise<void> {
    while (group.length > 0) {
      this.#onGroup?.(group.length);
      if (group.length === 1) await this.#settle(group[0]!, () => this.#pushAlone(userId, group[0]!));
      else await this.#pushGroup(userId, group);
      group = this.#queued.get(userId)!.splice(0, MAX_PUSH_GROUP);
    }
    this.#queued.delete(userId);
  }

  async #settle(push: QueuedPush, run: () => Promise<PushResponse>): Promise<void> {
    try {
      push.resolve(await run());
    } catch (error) {
      push.reject(error);
    }
  }

  /** Several pushes in one unit of work; each on its own when that unit fails. */
  async #pushGroup(userId: number, group: readonly QueuedPush[]): Promise<void> {
    let outs: (PlanOutcome & Announced)[];
    try {
      outs = await this.#store.inUserTransaction(userId, async (uow) => {
        // One read for every push's prefetch; each push then plans on it as the pushes before it left it.
        const shared = await GroupPrefetch.read(uow, group.map((push) => push.request));
        const planned = [];
        for (const push of group) planned.push(await this.#plan(shared, push.changeset, push.deviceUid, push.request));
        return planned;
      });
    } catch {
      for (const push of group) await this.#settle(push, () => this.#pushAlone(userId, push));
      return;
    }
    group.forEach((push, i) => {
      const out = outs[i]!;
      this.#committed(out);
      push.resolve(toPushResponse(out.results, out.conflicts));
    });
  }

  /**
   * One unit of work for the whole push: every item is decided in order on the rows as the items
   * before it left them, so the results are those of pushing the items one by one (the test oracle
   * `pushItemByItem` in testkit checks exactly that), with nothing half-applied. If storage fails
   * with anything but a `DomainError` (such as DATABASE_UNAVAILABLE, which fails the request), the
   * push is retried item by item so one poisonous item cannot block the others (a client would
   * retry the whole batch forever): an item whose unit of work fails that way is answered with a
   * per-item error and the rest still apply.
   */
  async #pushAlone(userId: number, { changeset, deviceUid, request }: QueuedPush): Promise<PushResponse> {
    try {
      const out = await this.#inUserTransactionNotifying(userId, (uow) => this.#plan(uow, changeset, deviceUid, request));
      return toPushResponse(out.results, out.conflicts);
    } catch (error) {
      if (error instanceof DomainError) throw error;
    }
    const results: { type: RecordType; result: ItemResult }[] = [];
    const conflicts: PushResponse['conflicts'] = [];
    for (const type of RECORD_TYPES) {
      for (const item of changeset[type] ?? []) {
        let out;
        try {
          out = await this.#inUserTransactionNotifying(userId, (uow) => this.#plan(uow, { [type]: [item] }, deviceUid));
        } catch (error) {
          if (error instanceof DomainError) throw error;
          this.#onItemFailure?.({ userId, type, uid: item.uid, error });
          results.push({ type, result: { uid: item.uid, status: 'error', error: NOT_STORED } });
          continue;
        }
        results.push(...out.results);
        conflicts.push(...out.conflicts);
      }
    }
    return toPushResponse(results, conflicts);
  }

  /** Decides and writes the items of `changeset` in push order inside one unit of work, announcing the change. */
  async #plan(uow: SyncUnitOfWork, changeset: PushChangeset, deviceUid: string | null, request?: PrefetchRequest): Promise<PlanOutcome & Announced> {
    const planner = new PushPlanner(uow, this.#clock.now().toISOString());
    await planner.prefetch(changeset, request);
    for (const type of RECORD_TYPES) for (const item of changeset[type] ?? []) await planner.planItem(type, item);
    return this.#commitAnnouncing(uow, planner, deviceUid);
  }

  async pull(userId: number, query: { readonly cursor?: string; readonly limit?: number }): Promise<PullResponse> {
    return decodePull(await this.pullEncoded(userId, query));
  }

  async pullEncoded(userId: number, query: { readonly cursor?: string; readonly limit?: number }): Promise<EncodedPullResponse> {
    const limit = clampToBounds(query.limit, PAGE_LIMITS.pull);
    let decoded = this.#codec.decode(query.cursor, userId);
    const first = await this.#store.readChangesSince(userId, decoded.watermarks, limit);
    // Retention removed tombstones this device may not have seen: a full snapshot, never a silent
    // gap (read anew, from the start: a page of its own transaction, like every page).
    const gap = !decoded.reset && predatesPurge(decoded.watermarks, first.purgedThrough);
    if (gap) decoded = { reset: true, watermarks: ZERO_WATERMARKS };
    const { bound, rows: changes, newestConflictId } = gap ? await this.#store.readChangesSince(userId, ZERO_WATERMARKS, limit) : first;
    const next: Record<RecordType, bigint> = { ...decoded.watermarks };
    const records = {} as Record<RecordType, readonly string[]>;
    let hasMore = false;
    for (const type of RECORD_TYPES) {
      const from = decoded.watermarks[type];
      const { lastVersion, more, wire } = changes[type];
      records[type] = wire;
      if (more && lastVersion !== null) {
        hasMore = true;
        next[type] = lastVersion;
      } else if (bound > from) {
        next[type] = bound;
      }
    }
    const nextCursor = this.#codec.encode(userId, next as Watermarks);
    return { records, cursorReset: decoded.reset, nextCursor, hasMore, newestConflictId };
  }

  /**
   * The occurrences of a window. The answer is shared: asking the same window, zone and calendars
   * again while the user's data is unchanged answers the same (frozen) page object.
   */
  async occurrences(userId: number, query: OccurrenceQuery): Promise<OccurrencePage> {
    checkOccurrenceWindow(query);
    const now = this.#clock.now().getTime();
    const kept = this.#windows.get(userId, query.from, query.to, now);
    const read = await this.#store.readEventWindow(userId, query.from, query.to, kept?.version);
    const entry = read.window === null && kept !== undefined ? kept : this.#windows.set(userId, query.from, query.to, read.version, read.window!, now);
    const { calendarZones, events } = entry.window;
    return entry.page(query, () => expandOccurrences(events, (uid) => calendarZones.get(uid) ?? null, query));
  }

  readObjects(userId: number, scope: ObjectScope, rootUids?: readonly string[]): Promise<ObjectRows> {
    return this.#store.readObjects(userId, scope, rootUids);
  }

  readObjectsChangedSince(userId: number, scope: ObjectScope, since: bigint): Promise<ObjectChanges> {
    return this.#store.readObjectsChangedSince(userId, scope, since);
  }

  readCollectionVersions(userId: number): Promise<CollectionVersions> {
    return this.#store.readCollectionVersions(userId);
  }

  readObjectListing(userId: number, scope: ObjectScope, extrasHolding: string): Promise<ObjectListing> {
    return this.#store.readObjectListing(userId, scope, extrasHolding);
  }

  async listConflicts(userId: number, query: { readonly afterId?: number; readonly limit?: number }): Promise<ConflictPage> {
    const limit = clampToBounds(query.limit, PAGE_LIMITS.conflicts);
    const afterId = clampToBounds(query.afterId, PAGE_LIMITS.conflictAfterId);
    const rows = await this.#store.listUnresolvedConflicts(userId, afterId, limit + 1);
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    return { conflicts: page.map(toConflictDto), hasMore, nextAfterId: hasMore ? page[page.length - 1]!.conflictId : null };
  }

  async resolveConflict(userId: number, conflictId: number, action: 'restore' | 'dismiss', deviceUid: string | null = null): Promise<ResolveResponse> {
    const { response } = await this.#inUserTransactionNotifying(userId, async (uow) => {
      const conflict = await uow.lockConflict(conflictId);
      if (conflict === null) throw new DomainError('NOT_FOUND', 'conflict not found');
      if (conflict.resolvedAt !== null) throw new DomainError('CONFLICT_RESOLVED', 'conflict already resolved');
      const now = this.#clock.now().toISOString();
      let record: ResolveResponse['record'] = null;
      let announced: Announced = NOTHING_ANNOUNCED;
      if (action === 'restore') {
        const planner = new PushPlanner(uow, now);
        await planner.planRestore(conflict);
        const { versionOf, change, alerts } = await this.#commitAnnouncing(uow, planner, deviceUid);
        announced = { change, alerts };
        const version = versionOf(conflict.type, conflict.uid)!;
        record = { entityType: ENTITY_TYPE[conflict.type], uid: conflict.uid, version: version.toString() };
      } else if (action !== 'dismiss') {
        throw new DomainError('VALIDATION_ERROR', 'action must be restore or dismiss');
      }
      await uow.markConflictResolved(conflictId, now);
      return { response: { conflict: toConflictDto({ ...conflict, resolvedAt: now }), record }, ...announced };
    });
    return response;
  }

  /** The newest change version of the user (0 when none): what a notification stream starts from. */
  async newestVersion(userId: number): Promise<bigint> {
    return this.#store.newestVersion(userId);
  }

  /**
   * Commits the plan and, when it wrote rows, announces the change inside the same transaction,
   * with the alerts of the conflicts it made (`conflictAlertsOf`): only a plan that made conflicts
   * reads the user's settings, in the same unit.
   */
  async #commitAnnouncing(uow: SyncUnitOfWork, planner: PushPlanner, deviceUid: string | null): Promise<PlanOutcome & Announced> {
    const out = await planner.commit();
    if (out.newestWritten === null) return { ...out, ...NOTHING_ANNOUNCED };
    const change: DataChange = { userId: uow.userId, version: out.newestWritten, deviceUid };
    await uow.announceChange(change);
    const alerts = out.conflicts.length === 0 ? [] : conflictAlertsOf(uow.userId, deviceUid, out.conflicts, await uow.readNotificationSettings());
    if (alerts.length > 0) await uow.announceAlerts(alerts);
    return { ...out, change, alerts };
  }

  /** Runs a unit of work and, once it committed, hands what it announced to the notifiers. */
  async #inUserTransactionNotifying<T extends Announced>(userId: number, work: (uow: SyncUnitOfWork) => Promise<T>): Promise<T> {
    const out = await this.#store.inUserTransaction(userId, work);
    this.#committed(out);
    return out;
  }

  /** Tells the notifiers what a committed unit announced. */
  #committed({ change, alerts }: Announced): void {
    if (change !== null) this.#notifier?.committed(change);
    for (const alert of alerts) this.#alerts?.alerted(alert);
  }
}

/** The `PullResponse` an encoded page stands for (each record's JSON parsed). */
export function decodePull(page: EncodedPullResponse): PullResponse {
  const { records: encoded, ...fields } = page;
  const records = {} as Record<RecordType, WireRecord[]>;
  for (const type of RECORD_TYPES) records[type] = encoded[type].map((text) => JSON.parse(text) as WireRecord);
  return { ...records, ...fields };
}
