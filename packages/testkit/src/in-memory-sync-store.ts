import {
  encodeWireRecord,
  eventWindowBounds,
  OCCURRENCE_SOURCE_FIELDS,
  isLiveDefaultCalendar,
  RECORD_TYPES,
  perRecordType,
  type ChangesSince,
  type ConflictRecord,
  type DataChange,
  DEFAULT_NOTIFICATION_SETTINGS,
  type NotificationSettings,
  type UserAlert,
  type EventWindow,
  type EventWindowRead,
  type CollectionVersions,
  type NewConflict,
  type ObjectChanges,
  type ObjectListing,
  type ObjectRows,
  type ObjectScope,
  type PushReceipt,
  type RecordRow,
  type RecordType,
  type RowWrite,
  type SyncStore,
  type SyncUnitOfWork,
} from '@calsync/domain';
import { InMemoryChangeFeed } from './in-memory-change-feed.js';
import { Mutex } from 'async-mutex';

/** One user's committed data. Rows and conflicts are immutable objects, so copies are shallow. */
interface UserData {
  readonly rows: Record<RecordType, Map<string, RecordRow>>;
  readonly conflicts: Map<number, ConflictRecord>;
  readonly receipts: Map<string, PushReceipt>;
  /** Departures of root events from calendars (`RowWrite.leaves`): per calendar uid, the version of each root's last move out. */
  readonly departures: Map<string, Map<string, bigint>>;
}

function emptyUser(): UserData {
  return {
    rows: perRecordType(() => new Map()),
    conflicts: new Map(),
    receipts: new Map(),
    departures: new Map(),
  };
}

/** The window's events and calendar zones among the user's committed rows (`SyncStore.readEventWindow`). */
function eventWindowOf(d: UserData, from: string, to: string): EventWindow {
  const [lo, hi] = eventWindowBounds(from, to);
  const live = (type: RecordType) => [...d.rows[type].values()].filter((r) => r.deleted === null).sort((a, b) => a.id - b.id);
  const rows = live('events').filter(
    (r) => r.fields.rrule != null || r.fields.recurringEventUid != null || (String(r.fields.startTime) < hi && String(r.fields.endTime) > lo),
  );
  const zones = new Map(live('calendars').map((c) => [c.uid, typeof c.fields.timezone === 'string' ? c.fields.timezone : null]));
  const calendarZones = new Map<string, string | null>();
  for (const r of rows) {
    const calendar = String(r.fields.calendarUid);
    if (zones.has(calendar)) calendarZones.set(calendar, zones.get(calendar)!);
  }
  const events = rows.map((r) => ({ uid: r.uid, fields: Object.fromEntries(OCCURRENCE_SOURCE_FIELDS.map((f) => [f, r.fields[f] ?? null])) }));
  return { calendarZones, events };
}

/** The highest version of any of the user's rows, tombstones included (0n when none). */
function newestVersionOf(d: UserData): bigint {
  let newest = 0n;
  for (const type of RECORD_TYPES) for (const r of d.rows[type].values()) if (r.version > newest) newest = r.version;
  return newest;
}

function copyUser(d: UserData): UserData {
  return {
    rows: perRecordType((type) => new Map(d.rows[type])),
    conflicts: new Map(d.conflicts),
    receipts: new Map(d.receipts),
    departures: new Map([...d.departures].map(([calendar, left]) => [calendar, new Map(left)])),
  };
}

/** What a unit of work announced, delivered once it commits. */
interface Announced {
  readonly changes: DataChange[];
  readonly alerts: UserAlert[];
}

const nothingAnnounced = (): Announced => ({ changes: [], alerts: [] });

const receiptKey = (r: Omit<PushReceipt, 'result'>): string => `${r.type}\u0000${r.uid}\u0000${r.fingerprint}`;

/**
 * `SyncStore` in memory with PostgreSQL's semantics: one global version sequence for all types
 * and users (not rolled back, like a sequence), per-table ids, a per-user lock, copy-on-write units
 * of work (a unit that throws persists nothing; nothing is visible before it finishes), unique
 * (user, type, uid) and at most one live default calendar per user (the partial unique index).
 */
export class InMemorySyncStore implements SyncStore {
  readonly #users = new Map<number, UserData>();
  /** One FIFO lock per user (the stand-in for pg_advisory_xact_lock). */
  readonly #locks = new Map<number, Mutex>();
  #sequence = 0n;
  #conflictIds = 0;
  readonly #rowIds: Record<RecordType, number> = perRecordType(() => 0);
  /** The feed this store announces committed changes on. */
  readonly changes = new InMemoryChangeFeed();
  readonly #settingsOf: (userId: number) => Promise<NotificationSettings | null>;

  /**
   * `settings`: a user's notification settings, which `readNotificationSettings` answers
   * (PostgreSQL reads them from the user's row); every user has the defaults when absent.
   */
  constructor(options: { readonly settings?: (userId: number) => Promise<NotificationSettings | null> } = {}) {
    this.#settingsOf = options.settings ?? (async () => DEFAULT_NOTIFICATION_SETTINGS);
  }

  async inUserTransaction<T>(userId: number, work: (uow: SyncUnitOfWork) => Promise<T>): Promise<T> {
    return this.#lockOf(userId).runExclusive(async () => {
      const staged = copyUser(this.#users.get(userId) ?? emptyUser());
      let open = true;
      const announced = nothingAnnounced();
      const uow = this.#unitOfWork(userId, staged, () => open, announced);
      try {
        const result = await work(uow);
        this.#users.set(userId, staged);
        open = false;
        this.changes.publish(announced.changes);
        for (const alert of announced.alerts) this.changes.publishAlert(alert);
        return result;
      } finally {
        open = false;
      }
    });
  }

  #lockOf(userId: number): Mutex {
    let lock = this.#locks.get(userId);
    if (lock === undefined) this.#locks.set(userId, (lock = new Mutex()));
    return lock;
  }

  /** Every row of a user (live and tombstones), for assertions in tests. */
  snapshotRows(userId: number, type: RecordType): RecordRow[] {
    return [...(this.#users.get(userId)?.rows[type].values() ?? [])].sort((a, b) => a.id - b.id);
  }

  /** The users that have any data, ascending (the in-memory reminder store walks them). */
  userIds(): number[] {
    return [...this.#users.keys()].sort((a, b) => a - b);
  }

  /** Every conflict of a user, resolved or not, for assertions in tests. */
  snapshotConflicts(userId: number): ConflictRecord[] {
    return [...(this.#users.get(userId)?.conflicts.values() ?? [])].sort((a, b) => a.conflictId - b.conflictId);
  }

  /** The global sequence's last value. */
  get lastVersion(): bigint {
    return this.#sequence;
  }

  /** What is committed, read through a unit of work that takes no lock and is never committed (it writes nothing). */
  async readObjects(userId: number, scope: ObjectScope, rootUids?: readonly string[]): Promise<ObjectRows> {
    return this.#unitOfWork(userId, this.#users.get(userId) ?? emptyUser(), () => true, nothingAnnounced()).readObjects(scope, rootUids);
  }

  /** The scope read whole, then only the objects with a row above `since` kept. */
  async readObjectsChangedSince(userId: number, scope: ObjectScope, since: bigint): Promise<ObjectChanges> {
    const d = this.#users.get(userId) ?? emptyUser();
    const all = await this.#unitOfWork(userId, d, () => true, nothingAnnounced()).readObjects(scope);
    const ownerOf = new Map<string, string>();
    for (const r of all.roots) ownerOf.set(r.uid, r.uid);
    for (const o of all.overrides) ownerOf.set(o.uid, String(o.fields.recurringEventUid));
    const reminderOwner = (r: RecordRow) => ownerOf.get(String(r.fields.eventUid ?? r.fields.taskUid));
    const changed = new Set<string>();
    for (const r of [...all.roots, ...all.overrides]) if (r.version > since) changed.add(ownerOf.get(r.uid)!);
    for (const r of all.reminders) if (r.version > since) changed.add(reminderOwner(r)!);
    const newestVersion = newestVersionOf(d);
    return {
      calendars: all.calendars,
      roots: all.roots.filter((r) => changed.has(r.uid)),
      overrides: all.overrides.filter((r) => changed.has(ownerOf.get(r.uid)!)),
      reminders: all.reminders.filter((r) => changed.has(reminderOwner(r)!)),
      departures: all.departures.filter((x) => x.version > since),
      newestVersion,
      // This store has no retention (no RetentionStore runs on it): nothing was ever purged.
      purgedThrough: 0n,
    };
  }

  /** The scope read whole, each root's highest version over its rows, its extras when they hold `extrasHolding`. */
  async readObjectListing(userId: number, scope: ObjectScope, extrasHolding: string): Promise<ObjectListing> {
    const all = await this.readObjects(userId, scope);
    const highest = new Map<string, bigint>();
    const ownerOf = new Map<string, string>();
    const raise = (root: string, version: bigint) => {
      if (version > (highest.get(root) ?? 0n)) highest.set(root, version);
    };
    for (const r of all.roots) {
      ownerOf.set(r.uid, r.uid);
      raise(r.uid, r.version);
    }
    for (const o of all.overrides) {
      ownerOf.set(o.uid, String(o.fields.recurringEventUid));
      raise(String(o.fields.recurringEventUid), o.version);
    }
    for (const m of all.reminders) raise(ownerOf.get(String(m.fields.eventUid ?? m.fields.taskUid))!, m.version);
    const holding = (extras: unknown): string | null => (typeof extras === 'string' && extras.includes(extrasHolding) ? extras : null);
    const objects = all.roots.map((r) => ({ uid: r.uid, deleted: r.deleted !== null, version: highest.get(r.uid)!, icalExtras: holding(r.fields.icalExtras) }));
    const departures = all.departures.map((x) => ({ ...x, icalExtras: holding(x.icalExtras) }));
    return { calendars: all.calendars, objects, departures };
  }

  /** The newest version of what is committed, then the window unless the version is `unlessVersion`. */
  async readEventWindow(userId: number, from: string, to: string, unlessVersion?: bigint): Promise<EventWindowRead> {
    const d = this.#users.get(userId) ?? emptyUser();
    const version = newestVersionOf(d);
    return { version, window: version === unlessVersion ? null : eventWindowOf(d, from, to) };
  }

  /** What is committed, without the lock. */
  async listUnresolvedConflicts(userId: number, afterId: number, limit: number): Promise<ConflictRecord[]> {
    return [...(this.#users.get(userId)?.conflicts.values() ?? [])]
      .filter((c) => c.resolvedAt === null && c.conflictId > afterId)
      .sort((a, b) => a.conflictId - b.conflictId)
      .slice(0, limit);
  }

  /** What is committed, without the lock. */
  async newestVersion(userId: number): Promise<bigint> {
    return newestVersionOf(this.#users.get(userId) ?? emptyUser());
  }

  /** Each live calendar's objects (and the tasks) read whole, and their highest version. */
  readChangesSince(userId: number, watermarks: Readonly<Record<RecordType, bigint>>, limit: number): Promise<ChangesSince> {
    return this.inUserTransaction(userId, (uow) => uow.readChangesSince(watermarks, limit));
  }

  async readCollectionVersions(userId: number): Promise<CollectionVersions> {
    const highest = (rows: ObjectRows): bigint => [...rows.roots, ...rows.overrides, ...rows.reminders, ...rows.departures].reduce((v, r) => (r.version > v ? r.version : v), 0n);
    const tasks = await this.readObjects(userId, { tasks: true });
    const calendars = new Map<string, bigint>();
    for (const c of tasks.calendars) {
      const v = highest(await this.readObjects(userId, { calendarUid: c.uid }));
      if (v > 0n) calendars.set(c.uid, v);
    }
    return { calendars, tasks: highest(tasks) };
  }

  #unitOfWork(userId: number, d: UserData, isOpen: () => boolean, announced: Announced): SyncUnitOfWork {
    /** Ids this unit drew and has not used yet: an insert must use one (as PostgreSQL's would, or meet another row). */
    const reserved = { rows: perRecordType(() => new Set<number>()), conflicts: new Set<number>() };
    const guard = (): void => {
      if (!isOpen()) throw new Error('unit of work used after it finished');
    };
    const live = (type: RecordType): RecordRow[] => [...d.rows[type].values()].filter((r) => r.deleted === null);
    return {
      userId,
      prefetch: async (wanted, keys) => {
        guard();
        const rows = perRecordType((type) =>
          wanted[type].flatMap((uid) => {
            const row = d.rows[type].get(uid);
            return row ? [row] : [];
          }).sort((a, b) => a.id - b.id),
        );
        const receipts = keys.flatMap((k) => {
          const r = d.receipts.get(receiptKey(k));
          return r ? [r] : [];
        });
        return { rows, receipts };
      },
      findLiveReferencing: async (type, field, parentUids) => {
        guard();
        const parents = new Set(parentUids);
        return live(type)
          .filter((r) => typeof r.fields[field] === 'string' && parents.has(r.fields[field] as string))
          .sort((a, b) => a.id - b.id);
      },
      findLiveDefaultCalendars: async () => {
        guard();
        return live('calendars').filter(isLiveDefaultCalendar).sort((a, b) => a.id - b.id);
      },
      reserve: async (request) => {
        guard();
        const draw = <N>(count: number | undefined, next: () => N): N[] => Array.from({ length: Math.max(0, count ?? 0) }, next);
        const versions = draw(request.versions, () => ++this.#sequence);
        const rowIds = perRecordType((type) => draw(request.rowIds?.[type], () => ++this.#rowIds[type]));
        const conflictIds = draw(request.conflictIds, () => ++this.#conflictIds);
        for (const type of RECORD_TYPES) for (const id of rowIds[type]) reserved.rows[type].add(id);
        for (const id of conflictIds) reserved.conflicts.add(id);
        return { versions, rowIds, conflictIds };
      },
      applyWrites: async (writes: readonly RowWrite[]) => {
        guard();
        for (const w of writes) {
          if (w.kind === 'insert' && !reserved.rows[w.row.type].delete(w.row.id)) throw new Error(`insert of ${w.row.type} id ${w.row.id}, not reserved by this unit`);
          this.#write(userId, d, w);
        }
      },
      saveReceipts: async (receipts) => {
        guard();
        for (const r of receipts) if (!d.receipts.has(receiptKey(r))) d.receipts.set(receiptKey(r), structuredClone(r));
      },
      insertConflicts: async (conflicts: readonly NewConflict[]) => {
        guard();
        for (const c of conflicts) {
          if (c.userId !== userId) throw new Error('conflict for another user');
          if (!reserved.conflicts.delete(c.conflictId)) throw new Error(`conflict id ${c.conflictId}, not reserved by this unit`);
          d.conflicts.set(c.conflictId, { ...structuredClone(c), resolvedAt: null });
        }
      },
      lockConflict: async (conflictId) => {
        guard();
        return d.conflicts.get(conflictId) ?? null;
      },
      markConflictResolved: async (conflictId, resolvedAt) => {
        guard();
        const c = d.conflicts.get(conflictId);
        if (c) d.conflicts.set(conflictId, { ...c, resolvedAt });
      },
      announceChange: async (change) => {
        guard();
        if (change.userId !== userId) throw new Error('change of another user');
        announced.changes.push(change);
      },
      readNotificationSettings: async () => {
        guard();
        return this.#settingsOf(userId);
      },
      announceAlerts: async (alerts) => {
        guard();
        if (alerts.some((a) => a.userId !== userId)) throw new Error('alert of another user');
        announced.alerts.push(...alerts);
      },
      readChangesSince: async (watermarks, limit) => {
        guard();
        const bound = this.#sequence;
        const rows = perRecordType((type) => {
          const after = [...d.rows[type].values()]
            .filter((r) => r.version > watermarks[type] && r.version <= bound)
            .sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
          const page = after.slice(0, Math.max(0, limit));
          return { lastVersion: page.at(-1)?.version ?? null, more: after.length > page.length, wire: page.map(encodeWireRecord) };
        });
        let newestConflictId: number | null = null;
        for (const c of d.conflicts.values()) if (c.resolvedAt === null && (newestConflictId === null || c.conflictId > newestConflictId)) newestConflictId = c.conflictId;
        // This store has no retention (no RetentionStore runs on it): nothing was ever purged.
        return { bound, rows, purgedThrough: 0n, newestConflictId };
      },
      readObjects: async (scope, rootUids) => {
        guard();
        const byId = (rows: Iterable<RecordRow>) => [...rows].sort((a, b) => a.id - b.id);
        const wanted = rootUids === undefined ? null : new Set(rootUids);
        const type = 'tasks' in scope ? 'tasks' : 'events';
        const roots = byId(d.rows[type].values()).filter(
          (r) => (wanted === null || wanted.has(r.uid)) && (type === 'tasks' || (r.fields.recurringEventUid == null && (!('calendarUid' in scope) || r.fields.calendarUid === scope.calendarUid))),
        );
        const rootUidSet = new Set(roots.map((r) => r.uid));
        const overrides = type === 'events' ? byId(d.rows.events.values()).filter((r) => rootUidSet.has(String(r.fields.recurringEventUid))) : [];
        const owners = new Set([...rootUidSet, ...overrides.map((r) => r.uid)]);
        const field = type === 'tasks' ? 'taskUid' : 'eventUid';
        const reminders = byId(d.rows.reminders.values()).filter((r) => owners.has(String(r.fields[field])));
        const calendars = byId(d.rows.calendars.values()).filter((r) => r.deleted === null);
        const left = 'calendarUid' in scope ? [...(d.departures.get(scope.calendarUid) ?? [])] : [];
        const departures = left
          .filter(([uid]) => wanted === null || wanted.has(uid))
          .map(([uid, version]) => {
            const extras = d.rows.events.get(uid)?.fields.icalExtras;
            return { uid, version, icalExtras: typeof extras === 'string' ? extras : null };
          });
        return { calendars, roots, overrides, reminders, departures };
      },
    };
  }

  #write(userId: number, d: UserData, w: RowWrite): void {
    const table = d.rows[w.row.type];
    if (w.row.userId !== userId) throw new Error('write for another user');
    const existing = table.get(w.row.uid);
    let row: RecordRow;
    if (w.kind === 'insert') {
      if (existing) throw new Error(`duplicate key (user_id, uid)=(${userId}, ${w.row.uid}) in ${w.row.type}`);
      row = { ...w.row, fields: { ...w.row.fields } };
    } else {
      if (!existing) throw new Error(`update of a missing row ${w.row.type}/${w.row.uid}`);
      if (existing.id !== w.row.id) throw new Error(`update of ${w.row.type}/${w.row.uid} addressed id ${w.row.id}, not this user's row ${existing.id}`);
      row = { ...w.row, fields: { ...w.row.fields }, id: existing.id, createdAt: existing.createdAt };
      if (w.leaves !== undefined) {
        const from = d.departures.get(w.leaves) ?? new Map<string, bigint>();
        d.departures.set(w.leaves, from.set(row.uid, row.version));
        d.departures.get(String(row.fields.calendarUid))?.delete(row.uid);
      }
    }
    if (isLiveDefaultCalendar(row)) {
      for (const other of table.values()) {
        if (other.uid !== row.uid && isLiveDefaultCalendar(other)) throw new Error('a second live default calendar (partial unique index)');
      }
    }
    table.set(row.uid, row);
  }
}
