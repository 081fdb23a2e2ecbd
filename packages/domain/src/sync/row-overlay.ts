import { FIELD_TABLES } from '../records/field-tables.js';
import { UID_PATTERN } from '../records/field-validation.js';
import { isLiveDefaultCalendar } from '../records/default-calendar.js';
import { perRecordType } from '../records/per-record-type.js';
import type { RecordRow, RecordType } from '../records/types.js';
import type { SyncUnitOfWork } from '../ports/sync-store.js';
import { childLinks } from '../rules/references.js';
import type { RowChange, RowView } from './row-view.js';

const keyOf = (type: RecordType, uid: string): string => `${type}\u0000${uid}`;

/**
 * The store's rows a plan has loaded, with every change decided so far laid over them. New rows
 * and versions get negative placeholders (ids -1, -2…, versions -1n, -2n… in decision order)
 * until `PushPlanner.commit` takes real ones, so later decisions see earlier ones exactly as if
 * each item had been committed on its own.
 */
export class RowOverlay implements RowView {
  readonly #uow: SyncUnitOfWork;
  readonly #now: string;
  readonly #rows = new Map<string, RecordRow | null>();
  /** The state each row had in the store when first loaded (null: absent). */
  readonly #origin = new Map<string, RecordRow | null>();
  /** Keys of changed rows, in the order they were first changed. */
  readonly #touched: string[] = [];
  readonly #touchedSet = new Set<string>();
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
    return this.#rows.get(keyOf(type, uid)) ?? null;
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
    for (const row of this.#rows.values()) {
      if (row !== null && row.type === type && row.deleted === null && match(row)) out.push(row);
    }
    return out.sort((a, b) => rank(a.id) - rank(b.id));
  }

  #remember(row: RecordRow): void {
    const key = keyOf(row.type, row.uid);
    if (this.#rows.has(key)) return;
    this.#rows.set(key, row);
    this.#origin.set(key, row);
  }

  /**
   * The uids, without repeats, whose rows are not known yet. A text that is not a uid (a hostile
   * reference such as `"x\u0000"`) names no stored row: it is known absent at once and never sent
   * to the store, whose database might refuse it and fail the whole unit of work.
   */
  missing(type: RecordType, uids: Iterable<string>): string[] {
    const out: string[] = [];
    for (const uid of new Set(uids)) {
      const key = keyOf(type, uid);
      if (this.#rows.has(key)) continue;
      if (UID_PATTERN.test(uid)) out.push(uid);
      else {
        this.#rows.set(key, null);
        this.#origin.set(key, null);
      }
    }
    return out;
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
    for (const row of rows) this.#remember(row);
    for (const uid of missing) {
      const key = keyOf(type, uid);
      if (!this.#rows.has(key)) {
        this.#rows.set(key, null);
        this.#origin.set(key, null);
      }
    }
  }

  /** Loads the rows referenced by `fields` and, for self-references (task parents), their ancestor chains. */
  async loadReferences(type: RecordType, fields: Readonly<Record<string, unknown>>): Promise<void> {
    for (const spec of FIELD_TABLES[type]) {
      let target = fields[spec.name];
      if (spec.kind !== 'ref' || spec.ref === undefined) continue;
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
    for (const row of await this.#uow.findLiveDefaultCalendars()) this.#remember(row);
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
        const key = keyOf(parent.type, parent.uid);
        if (seen.has(key)) continue;
        seen.add(key);
        parents.push(parent);
      }
      const toLoad = new Map<string, { type: RecordType; field: string; uids: string[] }>();
      for (const parent of parents) {
        for (const link of childLinks(parent.type)) {
          const loadKey = `${link.type}:${link.field}:${parent.uid}`;
          if (this.#childrenLoaded.has(loadKey)) continue;
          this.#childrenLoaded.add(loadKey);
          const linkKey = `${link.type}:${link.field}`;
          const group = toLoad.get(linkKey) ?? { type: link.type, field: link.field, uids: [] };
          group.uids.push(parent.uid);
          toLoad.set(linkKey, group);
        }
      }
      for (const group of toLoad.values()) {
        for (const row of await this.#uow.findLiveReferencing(group.type, group.field, group.uids)) this.#remember(row);
      }
      const next: RecordRow[] = [];
      for (const parent of parents) {
        for (const link of childLinks(parent.type)) next.push(...this.liveReferencing(link.type, link.field, parent.uid));
      }
      level = next;
    }
  }

  /** Lays a decided change over the rows with the next placeholder version. */
  apply(change: RowChange): RecordRow {
    const key = keyOf(change.type, change.uid);
    const prev = this.#rows.get(key) ?? null;
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
    if (!this.#touchedSet.has(key)) {
      this.#touchedSet.add(key);
      this.#touched.push(key);
    }
    this.#rows.set(key, row);
    return row;
  }

  /**
   * The changed rows, final state each, in the order to write them: first the updates that take
   * the default flag away from a stored default calendar (the partial unique index allows one live
   * default), then everything else in first-change order (so inserts get ids in decision order).
   */
  changedRows(): { readonly row: RecordRow; readonly existed: boolean }[] {
    const isLiveDefault = (r: RecordRow | null): boolean => r !== null && isLiveDefaultCalendar(r);
    const first: { row: RecordRow; existed: boolean }[] = [];
    const rest: { row: RecordRow; existed: boolean }[] = [];
    for (const key of this.#touched) {
      const row = this.#rows.get(key)!;
      const origin = this.#origin.get(key) ?? null;
      const entry = { row: row!, existed: origin !== null };
      (isLiveDefault(origin) && !isLiveDefault(row) ? first : rest).push(entry);
    }
    return [...first, ...rest];
  }
}
