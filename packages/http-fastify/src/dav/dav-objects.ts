import { RECORD_TYPES, type CollectionVersions, type Departure, type KeptRender, type ObjectRows, type ObjectScope, type PushChangeset, type PushItem, type RecordRow, type RecordType, type RenderStore, type SyncApi } from '@calsync/domain';
import { parseCalendar, planEventObject, planTaskObject, recordUidFor, renderCalendar, type ObjectWrite, type ParsedObject } from '@calsync/ical';
import { calendarZoneOf, eventObjectOf, groupObjects, taskObjectOf, type IcalObject } from '../ical/objects.js';
import { TASKS } from './dav-props.js';

/** The records behind a collection. */
export function scopeOf(collection: string): ObjectScope {
  return collection === TASKS ? { tasks: true } : { calendarUid: collection };
}

/** The property of a root's extras that keeps the name a calendar app put the object to, when it is not `<uid>.ics` (never written out: see @calsync/ical). */
const HREF_PROPERTY = 'X-CALSYNC-HREF';

const HREF = new RegExp(`(?:^|\\r?\\n)${HREF_PROPERTY}:([^\\r\\n]*)`);

/** The resource name of the object of root `uid` with extras `icalExtras`: the name a calendar app put it to, else `<uid>.ics`. */
export function hrefName(uid: string, icalExtras: unknown): string {
  const m = typeof icalExtras === 'string' ? HREF.exec(icalExtras) : null;
  return m?.[1] ?? `${uid}.ics`;
}

/** The resource name an object is listed under (`hrefName` of its root). */
export function hrefNameOf(root: RecordRow): string {
  return hrefName(root.uid, root.fields.icalExtras);
}

/** A resource name without its `.ics`. */
function stemOf(name: string): string {
  return name.endsWith('.ics') ? name.slice(0, -4) : name;
}

/** The highest version of any row of a scope and of its departures (the collection's CTag and sync token). */
export function collectionVersion(rows: ObjectRows): bigint {
  let v = 0n;
  for (const r of [...rows.roots, ...rows.overrides, ...rows.reminders, ...rows.departures]) if (r.version > v) v = r.version;
  return v;
}

/** A collection's objects, read at once: all of them, live and deleted (for sync-collection), and its calendar's zone. */
export interface Collection {
  readonly rows: ObjectRows;
  readonly objects: readonly IcalObject[];
  readonly zone: string | null;
  /** Task rows by uid (RELATED-TO names the parent's iCalendar UID). */
  readonly tasks: ReadonlyMap<string, RecordRow>;
}

/** One object of a collection as a listing names it: its resource name, whether it is gone, its version (ETag); `object` when its rows were read. */
export interface Member {
  readonly name: string;
  readonly deleted: boolean;
  readonly version: bigint;
  readonly object: IcalObject | null;
}

/** A collection listed without the rows of its objects: the user's live calendars, its members in the roots' order, its version (CTag, sync token). */
export interface Listing {
  readonly calendars: readonly RecordRow[];
  readonly members: readonly Member[];
  readonly version: bigint;
}

/** The members of a collection read whole: its objects, and the events that moved to another calendar as members gone at the move. */
export function membersOf(coll: Collection): Member[] {
  const members: Member[] = coll.objects.map((o) => ({ name: hrefNameOf(o.root), deleted: o.root.deleted !== null, version: o.version, object: o }));
  return [...members, ...coll.rows.departures.map(departedMember)];
}

/** A departure (an event moved to another calendar) as a member of the calendar it left: gone since the move, under the name it was listed by. */
function departedMember(d: Departure): Member {
  return { name: hrefName(d.uid, d.icalExtras), deleted: true, version: d.version, object: null };
}

/** Why a write was refused: a precondition (412), a text that is no calendar object of this collection (403/415), or bad input (400). */
export class DavWriteError extends Error {
  constructor(
    readonly status: 400 | 403 | 409 | 412 | 415,
    message: string,
    /** The CalDAV precondition element named in the error body (RFC 4791 §5.3.2.1), if any. */
    readonly precondition?: string,
  ) {
    super(message);
    this.name = 'DavWriteError';
  }
}

/** Characters of rendered text a `RenderCache` keeps at most (about 16 MB). */
const RENDER_CACHE_CHARS = 8_000_000;

/** The longest render a `RenderStore` keeps (a kept VEVENT is at most 64 KiB; longer ones are rendered each time). */
const KEPT_RENDER_CHARS = 80_000;

/**
 * The renderer's format, part of every render's key: raised when the same rows render to another
 * text (2: a series' UNTIL in RFC 5545's form for its DTSTART), so a kept text of an older server
 * is rendered again rather than served.
 */
const RENDER_FORMAT = '2';

/**
 * Rendered iCalendar texts of objects, by everything a render reads: the renderer's format, the
 * user, the collection, the calendar's zone and the uid and version of the root and of each live
 * override and reminder (a row's version moves with every change of it, from CalDAV or the sync
 * API alike). A calendar
 * app's calendar-query, multiget and GET of unchanged objects, and a second device's first sync,
 * are answered without parsing and writing the kept text again. Least recently used entries go
 * past `maxChars`. One per app: keys name rows of its store only.
 */
export class RenderCache {
  readonly #texts = new Map<string, string>();
  #chars = 0;

  constructor(private readonly maxChars = RENDER_CACHE_CHARS) {}

  /** The key of an object's render, or null when it reads more than its own rows (a subtask names its parent's UID). */
  static keyOf(userId: number, collection: string, zone: string | null, object: IcalObject): string | null {
    if (collection === TASKS && typeof object.root.fields.parentTaskUid === 'string') return null;
    const parts = [RENDER_FORMAT, String(userId), collection, zone ?? '', object.root.uid, String(object.root.version)];
    for (const r of [...object.overrides, ...object.reminders]) if (r.deleted === null) parts.push(r.uid, String(r.version));
    // Unambiguous, and storable as text (PostgreSQL's text holds no NUL).
    return JSON.stringify(parts);
  }

  has(key: string): boolean {
    return this.#texts.has(key);
  }

  get(key: string): string | undefined {
    const text = this.#texts.get(key);
    if (text !== undefined) {
      // Most recently used last.
      this.#texts.delete(key);
      this.#texts.set(key, text);
    }
    return text;
  }

  set(key: string, text: string): void {
    if (text.length > this.maxChars / 100 || this.#texts.has(key)) return;
    this.#texts.set(key, text);
    this.#chars += text.length;
    for (const [k, t] of this.#texts) {
      if (this.#chars <= this.maxChars) break;
      this.#texts.delete(k);
      this.#chars -= t.length;
    }
  }
}

/**
 * The objects PUT lately, rendered and kept after their PUTs have answered, a batch at a time: a
 * PUT's client does not wait for the render, and one read back and one write serve the PUTs of a
 * user's collection that came within `delayMs` (a calendar app uploading a calendar sends
 * hundreds). Only a cache: past `maxPending` waiting objects a PUT's object is rendered when first
 * read instead, and a failed batch is reported to `onError` and rendered when read.
 */
export class WrittenRenders {
  #pending = new Map<string, { userId: number; collection: string; uids: Set<string> }>();
  #size = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #running: Promise<void> = Promise.resolve();

  constructor(
    private readonly objectsOf: (userId: number) => DavObjects,
    private readonly onError: (error: unknown) => void,
    private readonly delayMs = 50,
    private readonly maxPending = 10_000,
  ) {}

  /** The object of root `uid` in a collection was written: render and keep it soon. */
  add(userId: number, collection: string, uid: string): void {
    if (this.#size >= this.maxPending) return;
    const key = `${userId}/${collection}`;
    let batch = this.#pending.get(key);
    if (batch === undefined) this.#pending.set(key, (batch = { userId, collection, uids: new Set() }));
    if (!batch.uids.has(uid)) {
      batch.uids.add(uid);
      this.#size++;
    }
    if (this.#timer === null) {
      this.#timer = setTimeout(() => this.#drain(), this.delayMs);
      this.#timer.unref?.();
    }
  }

  /** Renders and keeps everything added so far; resolves when it is kept. */
  async settled(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#drain();
    await this.#running;
  }

  #drain(): void {
    this.#timer = null;
    const batches = [...this.#pending.values()];
    this.#pending = new Map();
    this.#size = 0;
    this.#running = this.#running.then(async () => {
      for (const { userId, collection, uids } of batches) {
        const all = [...uids];
        for (let i = 0; i < all.length; i += 100) {
          try {
            await this.objectsOf(userId).renderWritten(collection, all.slice(i, i + 100));
          } catch (error) {
            this.onError(error);
          }
        }
      }
    });
  }
}

/**
 * CalDAV's view of one user's records (RFC 4791): collections (one per live calendar, and the
 * tasks), their objects as iCalendar, and writes that go through the sync engine like any push.
 */
export class DavObjects {
  constructor(
    private readonly sync: Pick<SyncApi, 'readObjects' | 'readObjectsChangedSince' | 'readCollectionVersions' | 'readObjectListing' | 'push'>,
    readonly userId: number,
    private readonly deviceUid: string,
    private readonly rendered: RenderCache = new RenderCache(0),
    /** Renders kept across processes (a fresh process's first sync reads them instead of rendering); none when absent. */
    private readonly kept?: RenderStore,
  ) {}

  /** Renders made afresh since the last `keepRenders`, to be written to the store. */
  #fresh: KeptRender[] = [];

  /** The user's live calendars. */
  async calendars(): Promise<RecordRow[]> {
    return (await this.sync.readObjects(this.userId, { calendarUid: '' }, [])).calendars;
  }

  /**
   * The user's live calendars and the version (CTag, sync token) of each collection, the tasks
   * included: one read of versions, not of every collection's objects (the fallback when the sync
   * engine offers no such read).
   */
  async collectionVersions(): Promise<{ calendars: RecordRow[]; version: (collection: string) => bigint }> {
    if (this.sync.readCollectionVersions === undefined) {
      const calendars = await this.calendars();
      const versions = new Map<string, bigint>();
      for (const collection of [...calendars.map((c) => c.uid), TASKS]) {
        const read = await this.collection(collection);
        if (read !== null) versions.set(collection, collectionVersion(read.rows));
      }
      return { calendars, version: (collection) => versions.get(collection) ?? 0n };
    }
    const [calendars, versions]: [RecordRow[], CollectionVersions] = await Promise.all([this.calendars(), this.sync.readCollectionVersions(this.userId)]);
    return { calendars, version: (collection) => (collection === TASKS ? versions.tasks : (versions.calendars.get(collection) ?? 0n)) };
  }

  /** A collection and all its objects, or null when no such collection exists. */
  async collection(collection: string): Promise<Collection | null> {
    const rows = await this.sync.readObjects(this.userId, scopeOf(collection));
    if (collection !== TASKS && !rows.calendars.some((c) => c.uid === collection)) return null;
    return this.toCollection(collection, rows);
  }

  /**
   * A collection's members without their rows (a PROPFIND Depth 1, a sync-collection without
   * calendar data), or null when no such collection exists. One read of uids, versions and, of the
   * roots that keep a resource name, their extras (the collection read whole when the sync engine
   * offers no such read).
   */
  async listing(collection: string): Promise<Listing | null> {
    if (this.sync.readObjectListing === undefined) {
      const coll = await this.collection(collection);
      return coll === null ? null : { calendars: coll.rows.calendars, members: membersOf(coll), version: collectionVersion(coll.rows) };
    }
    const read = await this.sync.readObjectListing(this.userId, scopeOf(collection), `${HREF_PROPERTY}:`);
    if (collection !== TASKS && !read.calendars.some((c) => c.uid === collection)) return null;
    // The highest version of every row of the scope: the highest of its objects'.
    let version = 0n;
    const members = [
      ...read.objects.map((o): Member => ({ name: hrefName(o.uid, o.icalExtras), deleted: o.deleted, version: o.version, object: null })),
      ...read.departures.map(departedMember),
    ];
    for (const m of members) if (m.version > version) version = m.version;
    return { calendars: read.calendars, members, version };
  }

  /**
   * The objects of a collection that changed after version `since`, each whole, with the
   * departures since, the user's newest version and purge horizon (one read of the changes, not of
   * the collection); null when the collection does not exist, undefined when the sync engine offers
   * no such read (then read the collection).
   */
  async changedSince(collection: string, since: bigint): Promise<{ within: Collection; newest: bigint; purgedThrough: bigint } | null | undefined> {
    if (this.sync.readObjectsChangedSince === undefined) return undefined;
    const rows = await this.sync.readObjectsChangedSince(this.userId, scopeOf(collection), since);
    if (collection !== TASKS && !rows.calendars.some((c) => c.uid === collection)) return null;
    return { within: this.toCollection(collection, rows), newest: rows.newestVersion, purgedThrough: rows.purgedThrough };
  }

  private toCollection(collection: string, rows: ObjectRows): Collection {
    return {
      rows,
      objects: groupObjects(rows),
      zone: collection === TASKS ? null : calendarZoneOf(rows, collection),
      tasks: new Map(collection === TASKS ? rows.roots.map((r) => [r.uid, r]) : []),
    };
  }

  /**
   * Where a resource name stands in a collection, by point reads only. A name's record uid derives
   * from the name (`<uid>.ics`, or the hash of a name that is no uid); when that record was deleted
   * and the name used again, the new record's uid derives from the name and the tombstone's version
   * (a tombstone is final), so the chain is followed a step per re-creation. Answers the live object
   * listed under the name, or the live object of another name that holds the name's uid, and the uid
   * a new object under the name takes; null when the collection does not exist. `rows` is the read
   * of the name's first uid when the caller has it.
   */
  private async resolve(
    collection: string,
    name: string,
    rows?: ObjectRows,
    /** Uids of other roots to read along with the name's first uid (a PUT's UID, for `newUid`). */
    alsoUids: readonly string[] = [],
    /**
     * Also read the other calendars' events under those uids (a PUT): a record uid is the
     * account's, not a calendar's, so a name or UID whose record lives (or lived) in another
     * calendar must be seen, or a PUT here would create an existing record, which the engine
     * answers by keeping its copy and storing nothing (docs/protocol.md).
     */
    across = false,
  ): Promise<{ rows: ObjectRows; found: IcalObject | null; taken: boolean; elsewhere: string | null; freeUid: string; firstRead: ObjectRows } | null> {
    const readUids = (uids: string[]): Promise<ObjectRows> => this.readRoots(collection, uids, across);
    let uid = recordUidFor(stemOf(name));
    const wanted = [uid, ...alsoUids.filter((u) => u !== uid)];
    let read = rows ?? (await readUids(wanted));
    const firstRead = read;
    if (collection !== TASKS && !read.calendars.some((c) => c.uid === collection)) return null;
    for (let step = 0; step < 20; step++) {
      const object = groupObjects(read).find((o) => o.root.uid === uid);
      if (object === undefined) return { rows: read, found: null, taken: false, elsewhere: null, freeUid: uid, firstRead };
      if (object.root.deleted === null) {
        const calendar = collection === TASKS ? collection : String(object.root.fields.calendarUid);
        if (calendar !== collection) return { rows: read, found: null, taken: true, elsewhere: calendar, freeUid: uid, firstRead };
        const listed = hrefNameOf(object.root) === name;
        return { rows: read, found: listed ? object : null, taken: !listed, elsewhere: null, freeUid: uid, firstRead };
      }
      uid = recordUidFor(`${stemOf(name)}/${object.root.version}`);
      read = await readUids([uid]);
    }
    return { rows: read, found: null, taken: true, elsewhere: null, freeUid: uid, firstRead };
  }

  /**
   * `readObjects` of `uids` in a collection and, `across`, in every calendar (one read). Tasks are
   * one collection.
   */
  private async readRoots(collection: string, uids: readonly string[], across: boolean): Promise<ObjectRows> {
    return this.sync.readObjects(this.userId, across && collection !== TASKS ? { allCalendars: true } : scopeOf(collection), uids);
  }

  /**
   * The live object a resource name names in a collection, or null. A name not found in the
   * collection's own read is looked up across the calendars: its chain of uids may pass through a
   * tombstone another calendar holds (an event moved here by DELETE there, then PUT here).
   */
  async find(collection: string, name: string): Promise<{ object: IcalObject; within: Collection } | null> {
    const here = await this.resolve(collection, name);
    if (here === null) return null;
    const r = here.found !== null ? here : await this.resolve(collection, name, undefined, [], true);
    return r?.found ? { object: r.found, within: this.toCollection(collection, r.rows) } : null;
  }

  /** The objects `names` name in a collection (a multiget): one read for all, a read across the calendars per re-created or missing name. */
  async findMany(collection: string, names: readonly string[]): Promise<{ found: Map<string, IcalObject>; within: Collection } | null> {
    const uids = names.map((n) => recordUidFor(stemOf(n)));
    const rows = await this.sync.readObjects(this.userId, scopeOf(collection), uids);
    if (collection !== TASKS && !rows.calendars.some((c) => c.uid === collection)) return null;
    const within = this.toCollection(collection, rows);
    const byUid = new Map(within.objects.map((o) => [o.root.uid, o]));
    const found = new Map<string, IcalObject>();
    for (const [i, name] of names.entries()) {
      const direct = byUid.get(uids[i]!);
      if (direct !== undefined && direct.root.deleted === null) {
        if (hrefNameOf(direct.root) === name) found.set(name, direct);
        continue;
      }
      // Re-created under the name (a tombstone first, here or in another calendar): follow its chain
      // across the calendars, from this read when the tombstone is here.
      const again = await this.resolve(collection, name, direct === undefined ? undefined : rows, [], true);
      if (again?.found) found.set(name, again.found);
    }
    return { found, within };
  }

  /** The iCalendar text of an object (see `loadRenders` and `keepRenders` for the kept texts across processes). */
  async render(object: IcalObject, within: Collection, collection: string): Promise<string> {
    const key = RenderCache.keyOf(this.userId, collection, within.zone, object);
    const kept = key === null ? undefined : this.rendered.get(key);
    if (kept !== undefined) return kept;
    const text = await this.renderAfresh(object, within, collection);
    if (key !== null) {
      this.rendered.set(key, text);
      if (this.kept !== undefined && text.length <= KEPT_RENDER_CHARS) this.#fresh.push({ uid: object.root.uid, key, text });
    }
    return text;
  }

  /**
   * Before rendering `objects`: the texts the store keeps for those this process has not rendered
   * yet, taken when their key is still the objects' own (one read for all of them).
   */
  async loadRenders(objects: readonly IcalObject[], within: Collection, collection: string): Promise<void> {
    if (this.kept === undefined) return;
    const wanted = new Map<string, string>();
    for (const o of objects) {
      if (o.root.deleted !== null) continue;
      const key = RenderCache.keyOf(this.userId, collection, within.zone, o);
      if (key !== null && !this.rendered.has(key)) wanted.set(o.root.uid, key);
    }
    if (wanted.size === 0) return;
    for (const r of await this.kept.readRenders(this.userId, [...wanted.keys()])) if (wanted.get(r.uid) === r.key) this.rendered.set(r.key, r.text);
  }

  /** Writes the renders made afresh since the last call to the store (one write for all of them). */
  async keepRenders(): Promise<void> {
    if (this.kept === undefined || this.#fresh.length === 0) return;
    const fresh = this.#fresh;
    this.#fresh = [];
    await this.kept.keepRenders(this.userId, fresh);
  }

  private async renderAfresh(object: IcalObject, within: Collection, collection: string): Promise<string> {
    if (collection !== TASKS) return renderCalendar({ events: [eventObjectOf(object)], calendarZone: within.zone });
    let tasks = within.tasks;
    const parentUid = object.root.fields.parentTaskUid;
    if (typeof parentUid === 'string' && !tasks.has(parentUid)) {
      const parent = (await this.sync.readObjects(this.userId, { tasks: true }, [parentUid])).roots[0];
      if (parent !== undefined) tasks = new Map([...tasks, [parent.uid, parent]]);
    }
    return renderCalendar({ tasks: [taskObjectOf(object, tasks)] });
  }

  /**
   * PUT of a calendar object: the text is read (one UID: an event with its overrides in a calendar
   * collection, a task in the tasks collection), compared with the records, and the difference
   * pushed as this app password's device. Preconditions: If-None-Match: * on an existing object and
   * an If-Match other than its ETag answer 412. Returns whether it was created and the new ETag,
   * which is null when what is stored differs from the text (a part calsync does not keep, a text
   * clipped to its field): RFC 4791, 5.3.4 then forbids an ETag in the answer, and the app reads
   * the object back.
   */
  async put(collection: string, name: string, text: string, conditions: { ifMatch?: string; ifNoneMatch?: string }): Promise<{ created: boolean; etag: string | null; written: string | null }> {
    // One read for the usual case: the record the name derives from, the record the text's UID
    // derives from (for newUid, when the name is no UID: `<uuid>.ics` with UID `…@host`), and the
    // calendars (the collection exists, its zone).
    const hint = icalUidHint(text);
    const named = await this.resolve(collection, name, undefined, hint === null ? [] : [recordUidFor(hint)], true);
    if (named === null) throw new DavWriteError(409, 'no such calendar collection');
    const { rows, found } = named;
    // Preconditions first: an If-Match on a name this collection no longer holds (its event moved to
    // another calendar, or was deleted) is 412, so the app reads the collection again (RFC 9110, 13.1.1).
    if (conditions.ifNoneMatch !== undefined && conditions.ifNoneMatch.trim() === '*' && found !== null) throw new DavWriteError(412, 'the resource exists');
    if (conditions.ifMatch !== undefined && (found === null || !matchesEtag(conditions.ifMatch, `"${found.version}"`))) {
      throw new DavWriteError(412, found === null ? 'the resource is not in this collection any more (If-Match)' : 'the resource changed (If-Match)');
    }
    if (named.elsewhere !== null) {
      throw new DavWriteError(409, `the event ${name} lives in calendar ${named.elsewhere} (an event is in one calendar): delete it there before putting it here`, 'no-uid-conflict');
    }
    const zone = collection === TASKS ? null : calendarZoneOf(rows, collection);
    let parsed;
    try {
      parsed = parseCalendar(text, zone ?? 'UTC');
    } catch (error) {
      throw new DavWriteError(415, error instanceof Error ? error.message : String(error), 'supported-calendar-data');
    }
    if (parsed.objects.length !== 1) {
      const why = parsed.skipped.map((s) => s.reason).join('; ');
      throw new DavWriteError(403, `a calendar object resource holds exactly one event or task${why ? ` (${why})` : ''}`, 'valid-calendar-object-resource');
    }
    const object = parsed.objects[0]!;
    if ((object.kind === 'task') !== (collection === TASKS)) {
      throw new DavWriteError(403, collection === TASKS ? 'the tasks collection holds VTODO' : 'a calendar collection holds VEVENT', 'supported-calendar-component');
    }
    const uid = found?.root.uid ?? (await this.newUid(collection, object.icalUid, named, hint === null ? [] : [recordUidFor(hint)]));
    const writes = planObject(withHref(object, uid, name), found, uid, collection, zone);
    // A recorded move makes the server re-key the series' overrides after the push's own writes
    // (later versions), and adds `moves`: what is stored is not the text either way.
    const moved = writes.some((w) => w.uid === uid && w.fields.moves !== undefined);
    const asSent = parsed.skipped.length === 0 && !moved;
    if (writes.length === 0) return { created: false, etag: asSent ? `"${found!.version}"` : null, written: null };
    // The push's versions are the newest of the object: they are its new ETag, no second read needed.
    const written = await this.pushWrites(writes, found);
    return { created: found === null, etag: asSent ? `"${written}"` : null, written: uid };
  }

  /**
   * Renders the objects of roots `uids` of a collection as stored (read back: the engine decides
   * what a push stores, and under which versions) and keeps them, here and in the store: objects
   * PUT a moment ago (see `WrittenRenders`), so that the first sync of the calendar apps that read
   * them later finds them rendered. One read and one write for all of them.
   */
  async renderWritten(collection: string, uids: readonly string[]): Promise<void> {
    if (this.kept === undefined || uids.length === 0) return;
    const rows = await this.sync.readObjects(this.userId, scopeOf(collection), uids);
    if (collection !== TASKS && !rows.calendars.some((c) => c.uid === collection)) return;
    const within = this.toCollection(collection, rows);
    for (const object of within.objects) {
      // A subtask's render reads its parent too: it is not kept.
      if (object.root.deleted === null && RenderCache.keyOf(this.userId, collection, within.zone, object) !== null) await this.render(object, within, collection);
    }
    await this.keepRenders();
  }

  /** DELETE of a calendar object (its overrides and reminders go with it, as with any delete). */
  async remove(collection: string, name: string, ifMatch?: string): Promise<boolean> {
    const found = await this.find(collection, name);
    if (found === null) return false;
    if (ifMatch !== undefined && !matchesEtag(ifMatch, `"${found.object.version}"`)) throw new DavWriteError(412, 'the resource changed (If-Match)');
    const type: RecordType = collection === TASKS ? 'tasks' : 'events';
    await this.pushOrThrow({ [type]: [{ uid: found.object.root.uid, op: 'delete', baseVersion: found.object.root.version.toString(), fields: {} }] });
    await this.kept?.dropRenders(this.userId, [found.object.root.uid]);
    return true;
  }

  /** MKCALENDAR: a new calendar named by the collection's name; false when it exists. */
  async makeCalendar(collection: string, props: { name?: string; color?: string }): Promise<boolean> {
    if (collection === TASKS || (await this.calendars()).some((c) => c.uid === collection)) return false;
    await this.pushOrThrow({ calendars: [{ uid: collection, op: 'upsert', baseVersion: null, fields: { name: props.name ?? collection, ...(props.color ? { color: props.color } : {}) } }] });
    return true;
  }

  /** PROPPATCH of a calendar's display name and colour. */
  async patchCalendar(collection: string, props: { name?: string; color?: string | null }): Promise<void> {
    const calendar = (await this.calendars()).find((c) => c.uid === collection);
    if (calendar === undefined) throw new DavWriteError(409, 'no such calendar collection');
    const fields = { ...(props.name !== undefined ? { name: props.name } : {}), ...(props.color !== undefined ? { color: props.color } : {}) };
    if (Object.keys(fields).length > 0) await this.pushOrThrow({ calendars: [{ uid: collection, op: 'upsert', baseVersion: calendar.version.toString(), fields }] });
  }

  /** DELETE of a calendar collection: the calendar and all its events. */
  async removeCalendar(collection: string): Promise<boolean> {
    const calendar = (await this.calendars()).find((c) => c.uid === collection);
    if (calendar === undefined) return false;
    await this.pushOrThrow({ calendars: [{ uid: collection, op: 'delete', baseVersion: calendar.version.toString(), fields: {} }] });
    return true;
  }

  /**
   * The record uid of an object a client creates under a name: the free uid of the name's chain
   * (see `resolve`), so every later request finds it with point reads (calendar apps name a
   * resource `<UID>.ics`, and then it is the uid an import of the same UID derives, so RELATED-TO
   * finds the parent). The same UID live under another name is RFC 4791's no-uid-conflict (409).
   */
  private async newUid(collection: string, icalUid: string, named: { taken: boolean; freeUid: string; firstRead: ObjectRows }, readAlong: readonly string[]): Promise<string> {
    // Made only when thrown: an Error's stack trace is costly on every PUT.
    const conflict = () => new DavWriteError(409, `UID ${icalUid} is stored under another resource name`, 'no-uid-conflict');
    if (named.taken) throw conflict();
    const byUid = recordUidFor(icalUid);
    if (byUid !== named.freeUid) {
      // Read along with the name when the hint was right; else read now.
      const rows = readAlong.includes(byUid) ? named.firstRead : await this.readRoots(collection, [byUid], true);
      const other = rows.roots.find((r) => r.uid === byUid);
      if (other !== undefined && other.deleted === null) throw conflict();
    }
    return named.freeUid;
  }

  /** Pushes an object's writes; returns the highest version the push gave (the object's new ETag). */
  private async pushWrites(writes: readonly ObjectWrite[], current: IcalObject | null): Promise<bigint> {
    const versions = new Map<string, string>();
    for (const r of current === null ? [] : [current.root, ...current.overrides, ...current.reminders]) versions.set(`${r.type}/${r.uid}`, r.version.toString());
    const changeset: Partial<Record<RecordType, PushItem[]>> = {};
    for (const w of writes) {
      const item: PushItem = { uid: w.uid, op: w.op === 'delete' ? 'delete' : 'upsert', baseVersion: w.op === 'create' ? null : (versions.get(`${w.type}/${w.uid}`) ?? null), fields: w.fields };
      (changeset[w.type] ??= []).push(item);
    }
    return this.pushOrThrow(changeset);
  }

  /** Pushes as the app password's device; an item the engine refuses fails the request. Returns the highest version given. */
  private async pushOrThrow(changeset: Partial<Record<RecordType, PushItem[]>>): Promise<bigint> {
    const answer = await this.sync.push(this.userId, changeset as PushChangeset, this.deviceUid);
    let newest = 0n;
    for (const type of RECORD_TYPES) {
      for (const result of answer[type]) {
        if (result.status === 'error') {
          const status = result.error.code === 'UNKNOWN_REFERENCE' ? 409 : 403;
          throw new DavWriteError(status, `${type} ${result.uid}: ${result.error.message}`, 'valid-calendar-object-resource');
        }
        if (result.version !== null && BigInt(result.version) > newest) newest = BigInt(result.version);
      }
    }
    return newest;
  }
}

/** The writes of a parsed object against what the records hold now. */
function planObject(object: ParsedObject, current: IcalObject | null, uid: string, collection: string, calendarZone: string | null): ObjectWrite[] {
  const live = (rows: readonly RecordRow[]) => rows.filter((r) => r.deleted === null).map((r) => ({ uid: r.uid, fields: r.fields }));
  const now = {
    root: current === null ? null : { uid: current.root.uid, fields: current.root.fields },
    overrides: current === null ? [] : live(current.overrides),
    reminders: current === null ? [] : live(current.reminders),
  };
  return object.kind === 'event' ? planEventObject(now, object, uid, collection, calendarZone) : planTaskObject(now, object, uid);
}

/** The object with the resource name kept in its extras when the name is not `<uid>.ics` (never written out: see @calsync/ical). */
function withHref(object: ParsedObject, uid: string, name: string): ParsedObject {
  if (name === `${uid}.ics`) return object;
  const fields = object.kind === 'event' ? object.root.fields : object.fields;
  const component = object.kind === 'event' ? 'VEVENT' : 'VTODO';
  const extras = typeof fields.icalExtras === 'string' ? fields.icalExtras : `BEGIN:${component}\r\nEND:${component}`;
  const kept = extras.replace(new RegExp(`\\r?\\n${HREF_PROPERTY}:[^\\r\\n]*`, 'g'), '').replace(/(\r?\nEND:V[A-Z]+)$/, `\r\n${HREF_PROPERTY}:${name}$1`);
  if (object.kind === 'event') return { ...object, root: { ...object.root, fields: { ...object.root.fields, icalExtras: kept } } };
  return { ...object, fields: { ...object.fields, icalExtras: kept } };
}

/**
 * The first UID of an iCalendar text, found without parsing it (unfolded, unescaped as TEXT), or
 * null: only a hint of which record to read along (the parse decides; a wrong hint costs a read).
 */
export function icalUidHint(text: string): string | null {
  const m = /(?:^|\n)UID(?:;[^:\r\n]*)?:([^\r\n]*(?:\r?\n[ \t][^\r\n]*)*)/.exec(text);
  if (m === null) return null;
  const value = m[1]!.replace(/\r?\n[ \t]/g, '').replace(/\\([\\;,nN])/g, (_, c: string) => (c === 'n' || c === 'N' ? '\n' : c));
  return value === '' ? null : value;
}

/** Whether an If-Match header names `etag` (or is `*`). */
function matchesEtag(header: string, etag: string): boolean {
  // If-Match compares strongly (RFC 9110, 13.1.1): a weak tag matches nothing.
  return header.split(',').some((t) => t.trim() === '*' || t.trim() === etag);
}
