import { referenceFields } from '../records/field-tables.js';
import { UID_PATTERN } from '../records/field-validation.js';
import { isLiveDefaultCalendar } from '../records/default-calendar.js';
import { calendarLeft } from '../records/calendar-move.js';
import { perRecordType } from '../records/per-record-type.js';
import type { RecordRow, RecordType } from '../records/types.js';
import type { SyncUnitOfWork } from '../ports/sync-store.js';
import { childLinks } from '../rules/references.js';
import type { RowChange, RowView } from './row-view.js';

/** A row a plan changed: its final state, whether the store held it, and the calendar it leaves (`calendarLeft`). */
export interface ChangedRow {
  readonly row: RecordRow;
  readonly existed: boolean;
  readonly leaves: string | undefined;
}

/**
 * The store's rows a plan has loaded, with every change decided so far laid over them. New rows
 * and versions get negative placeholders (ids -1, -2…, versions -1n, -2n… in decision order)
 * until `PushPlanner.commit` takes real ones, so later decisions see earlier ones exactly as if
 * each item had been committed on its own.
 */
export class RowOverlay implements RowView {
  readonly #uow: SyncUnitOfWork;
  readonly #now: string;
  // Rows are kept per type and looked up by the uid itself: a uid string hashes once, where a
  // joined type-and-uid key would be built and hashed anew at every look-up.
  readonly #rows = perRecordType(() => new Map<string, RecordRow | null>());
  /** The state each row had in the store when first loaded (null: absent). */
  readonly #origin = perRecordType(() => new Map<string, RecordRow | null>());
  /** Changed rows, in the order they were first changed. */
  readonly #touched: { readonly type: RecordType; readonly uid: string }[] = [];
  readonly #touchedSet = perRecordType(() => new Set<string>());
  readonly #childrenLoaded = new Set<string>();
  #defaultsLoaded = false;
  #versions = 0;
  #ids = 0;

  constructor(uow: SyncUnitOfWork, now: string) {
    this.#uow = uow;
    this.#now = now;
  }

  /** Number of placeholder versions handed out so far. */
  get placeholderCount(): number {
    return this.#versions;
  }

  get(type: RecordType, uid: string): RecordRow | null {
    return this.#rows[type].get(uid) ?? null;
  }

  /** The row as the store held it when first loaded (null: absent or not loaded), whatever this plan changed since. */
  stored(type: RecordType, uid: string): RecordRow | null {
    return this.#origin[type].get(uid) ?? null;
  }

  liveDefaultCalendars(): readonly RecordRow[] {
    return this.#scan('calendars', (r) => r.fields.isDefault === true);
  }

  liveReferencing(type: RecordType, field: string, parentUid: string): readonly RecordRow[] {
    return this.#scan(type, (r) => r.fields[field] === parentUid);
  }

  /**
   * Live rows of a type that match, in id order: stored ids first, then rows created in this plan
   * in creation order, which is the order their real ids will have. Decisions never depend on
   * the order rows happened to be loaded in.
   */
  #scan(type: RecordType, match: (row: RecordRow) => boolean): RecordRow[] {
    const rank = (id: number): number => (id > 0 ? id : Number.MAX_SAFE_INTEGER / 2 - id);
    const out: RecordRow[] = [];
    for (const row of this.#rows[type].values()) {
      if (row !== null && row.deleted === null && match(row)) out.push(row);
    }
    return out.sort((a, b) => rank(a.id) - rank(b.id));
  }

  /** Records what the store holds for (type, uid) (null: absent), unless it is already known. */
  #remember(type: RecordType, uid: string, row: RecordRow | null): void {
    if (this.#rows[type].has(uid)) return;
    this.#rows[type].set(uid, row);
    this.#origin[type].set(uid, row);
  }

  /**
   * The uids, without repeats, whose rows are not known yet. A text that is not a uid (a hostile
   * reference such as `"x\u0000"`) names no stored row: it is known absent at once and never sent
   * to the store, whose database might refuse it and fail the whole unit of work.
   */
  missing(type: RecordType, uids: Iterable<string>): string[] {
    const out: string[] = [];
    const rows = this.#rows[type];
    for (const uid of new Set(uids)) {
      if (rows.has(uid)) continue;
      if (UID_PATTERN.test(uid)) out.push(uid);
      else this.#remember(type, uid, null);
    }
    return out;
  }

  /** Loads (and locks) the live rows of `type` whose reference or link field `field` names one of `parentUids`, once per parent. */
  async loadReferencing(type: RecordType, field: string, parentUids: readonly string[]): Promise<void> {
    const parents = parentUids.filter((uid) => !this.#childrenLoaded.has(`${type}:${field}:${uid}`));
    if (parents.length === 0) return;
    for (const uid of parents) this.#childrenLoaded.add(`${type}:${field}:${uid}`);
    for (const row of await this.#uow.findLiveReferencing(type, field, parents)) this.#remember(row.type, row.uid, row);
  }

  /** Loads (and locks) the rows of these uids that are not known yet. */
  async load(type: RecordType, uids: Iterable<string>): Promise<void> {
    const missing = this.missing(type, uids);
    if (missing.length === 0) return;
    const wanted = perRecordType((t): readonly string[] => (t === type ? missing : []));
    this.loaded(type, missing, (await this.#uow.prefetch(wanted, [])).rows[type]);
  }

  /** Records what the store's `prefetch` answered for these uids of `type` (absent ones are null rows). */
  loaded(type: RecordType, missing: readonly string[], rows: readonly RecordRow[]): void {
    for (const row of rows) this.#remember(row.type, row.uid, row);
    for (const uid of missing) this.#remember(type, uid, null);
  }

  /** Loads the rows referenced by `fields` and, for self-references (task parents), their ancestor chains. */
  async loadReferences(type: RecordType, fields: Readonly<Record<string, unknown>>): Promise<void> {
    for (const spec of referenceFields(type)) {
      let target = fields[spec.name];
      if (spec.ref === undefined || typeof target !== 'string') continue;
      const seen = new Set<string>();
      while (typeof target === 'string' && !seen.has(target)) {
        seen.add(target);
        await this.load(spec.ref, [target]);
        if (spec.ref !== type) break;
        target = this.get(spec.ref, target)?.fields[spec.name];
      }
    }
  }

  /** Loads the user's live default calendars once. */
  async loadDefaults(): Promise<void> {
    if (this.#defaultsLoaded) return;
    this.#defaultsLoaded = true;
    for (const row of await this.#uow.findLiveDefaultCalendars()) this.#remember(row.type, row.uid, row);
  }

  /**
   * Loads every live descendant of the row (what a delete would cascade to), level by level: one
   * `findLiveReferencing` per link and level, with the uids of all that level's parents.
   */
  async loadDescendants(type: RecordType, uid: string): Promise<void> {
    let level: RecordRow[] = [];
    const root = this.get(type, uid);
    if (root !== null) level = [root];
    const seen = new Set<string>();
    while (level.length > 0) {
      const parents: RecordRow[] = [];
      for (const parent of level) {
        const key = `${parent.type}\u0000${parent.uid}`;
        if (seen.has(key)) continue;
        seen.add(key);
        parents.push(parent);
      }
      const toLoad = new Map<string, { type: RecordType; field: string; uids: string[] }>();
      for (const parent of parents) {
        for (const link of childLinks(parent.type)) {
          const linkKey = `${link.type}:${link.field}`;
          const group = toLoad.get(linkKey) ?? { type: link.type, field: link.field, uids: [] };
          group.uids.push(parent.uid);
          toLoad.set(linkKey, group);
        }
      }
      for (const group of toLoad.values()) await this.loadReferencing(group.type, group.field, group.uids);
      const next: RecordRow[] = [];
      for (const parent of parents) {
        for (const link of childLinks(parent.type)) next.push(...this.liveReferencing(link.type, link.field, parent.uid));
      }
      level = next;
    }
  }

  /** Lays a decided change over the rows with the next placeholder version. */
  apply(change: RowChange): RecordRow {
    const prev = this.get(change.type, change.uid);
    this.#versions += 1;
    const row: RecordRow = {
      type: change.type,
      id: prev?.id ?? -(++this.#ids),
      userId: this.#uow.userId,
      uid: change.uid,
      version: -BigInt(this.#versions),
      createdAt: prev?.createdAt ?? this.#now,
      updatedAt: this.#now,
      deleted: change.deleted ? (prev?.deleted ?? this.#now) : null,
      fields: change.fields,
    };
    if (!this.#touchedSet[change.type].has(change.uid)) {
      this.#touchedSet[change.type].add(change.uid);
      this.#touched.push({ type: change.type, uid: change.uid });
    }
    this.#rows[change.type].set(change.uid, row);
    return row;
  }

  /**
   * The changed rows, final state each, in the order to write them: first the updates that take
   * the default flag away from a stored default calendar (the partial unique index allows one live
   * default), then everything else in first-change order (so inserts get ids in decision order).
   */
  changedRows(): ChangedRow[] {
    const isLiveDefault = (r: RecordRow | null): boolean => r !== null && isLiveDefaultCalendar(r);
    const first: ChangedRow[] = [];
    const rest: ChangedRow[] = [];
    for (const { type, uid } of this.#touched) {
      const row = this.#rows[type].get(uid)!;
      const origin = this.stored(type, uid);
      const entry = { row: row!, existed: origin !== null, leaves: calendarLeft(origin, row!) };
      (isLiveDefault(origin) && !isLiveDefault(row) ? first : rest).push(entry);
    }
    return [...first, ...rest];
  }
}
