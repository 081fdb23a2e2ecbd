import { DomainError, RECORD_TYPES, type ObjectRows, type ObjectScope, type PushChangeset, type PushItem, type RecordRow, type RecordType, type SyncApi } from '@calsync/domain';
import { parseCalendar, planEventObject, planTaskObject, recordUidFor, renderCalendar, type ObjectWrite, type ParsedObject } from '@calsync/ical';
import { calendarZoneOf, eventObjectOf, groupObjects, icalUidOf, taskObjectOf, type IcalObject } from '../ical/objects.js';

/** The collection of the user's tasks (VTODO); every other collection is a calendar (VEVENT), named by its uid. */
export const TASKS = 'tasks';

/** The records behind a collection. */
export function scopeOf(collection: string): ObjectScope {
  return collection === TASKS ? { tasks: true } : { calendarUid: collection };
}

const HREF = /(?:^|\r?\n)X-CALSYNC-HREF:([^\r\n]*)/;

/** The resource name an object is listed under: the name a calendar app put it to, else `<uid>.ics`. */
export function hrefNameOf(root: RecordRow): string {
  const extras = root.fields.icalExtras;
  const m = typeof extras === 'string' ? HREF.exec(extras) : null;
  return m?.[1] ?? `${root.uid}.ics`;
}

/** A resource name without its `.ics`. */
function stemOf(name: string): string {
  return name.endsWith('.ics') ? name.slice(0, -4) : name;
}

/** The highest version of any row of a scope (the collection's CTag and sync token). */
export function collectionVersion(rows: ObjectRows): bigint {
  let v = 0n;
  for (const r of [...rows.roots, ...rows.overrides, ...rows.reminders]) if (r.version > v) v = r.version;
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

/**
 * CalDAV's view of one user's records (RFC 4791): collections (one per live calendar, and the
 * tasks), their objects as iCalendar, and writes that go through the sync engine like any push.
 */
export class DavObjects {
  constructor(
    private readonly sync: Pick<SyncApi, 'readObjects' | 'push'>,
    readonly userId: number,
    private readonly deviceUid: string,
  ) {}

  /** The user's live calendars. */
  async calendars(): Promise<RecordRow[]> {
    return (await this.sync.readObjects(this.userId, { calendarUid: '' }, [])).calendars;
  }

  /** A collection and all its objects, or null when no such collection exists. */
  async collection(collection: string): Promise<Collection | null> {
    const rows = await this.sync.readObjects(this.userId, scopeOf(collection));
    if (collection !== TASKS && !rows.calendars.some((c) => c.uid === collection)) return null;
    return this.toCollection(collection, rows);
  }

  private toCollection(collection: string, rows: ObjectRows): Collection {
    return {
      rows,
      objects: groupObjects(rows),
      zone: collection === TASKS ? null : calendarZoneOf(rows, collection),
      tasks: new Map(collection === TASKS ? rows.roots.map((r) => [r.uid, r]) : []),
    };
  }

  /** The live object a resource name names in a collection, or null. */
  async find(collection: string, name: string): Promise<{ object: IcalObject; within: Collection } | null> {
    const uid = recordUidFor(stemOf(name));
    const rows = await this.sync.readObjects(this.userId, scopeOf(collection), [uid]);
    if (collection !== TASKS && !rows.calendars.some((c) => c.uid === collection)) return null;
    const direct = groupObjects(rows).find((o) => o.root.deleted === null && hrefNameOf(o.root) === name);
    if (direct !== undefined) return { object: direct, within: this.toCollection(collection, rows) };
    // Put again after a delete, the object lives under another uid with its name kept: look it up.
    const all = await this.collection(collection);
    const found = all?.objects.find((o) => o.root.deleted === null && hrefNameOf(o.root) === name);
    return found === undefined || all === null ? null : { object: found, within: all };
  }

  /** The iCalendar text of an object. */
  async render(object: IcalObject, within: Collection, collection: string): Promise<string> {
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
   * an If-Match other than its ETag answer 412. Returns whether it was created and the new ETag.
   */
  async put(collection: string, name: string, text: string, conditions: { ifMatch?: string; ifNoneMatch?: string }): Promise<{ created: boolean; etag: string }> {
    const found = await this.find(collection, name);
    if (collection !== TASKS && found === null && !(await this.calendars()).some((c) => c.uid === collection)) {
      throw new DavWriteError(409, 'no such calendar collection');
    }
    if (conditions.ifNoneMatch !== undefined && conditions.ifNoneMatch.trim() === '*' && found !== null) throw new DavWriteError(412, 'the resource exists');
    if (conditions.ifMatch !== undefined && (found === null || !matchesEtag(conditions.ifMatch, `"${found.object.version}"`))) {
      throw new DavWriteError(412, 'the resource changed (If-Match)');
    }
    const zone = found?.within.zone ?? (collection === TASKS ? null : calendarZoneOf(await this.sync.readObjects(this.userId, { calendarUid: collection }, []), collection));
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
    const uid = found?.object.root.uid ?? (await this.newUid(collection, object.icalUid));
    const writes = planObject(withHref(object, uid, name), found?.object ?? null, uid, collection);
    if (writes.length > 0) await this.pushWrites(writes, found?.object ?? null);
    const after = await this.find(collection, name);
    if (after === null) throw new DavWriteError(409, 'the resource could not be stored');
    return { created: found === null, etag: `"${after.object.version}"` };
  }

  /** DELETE of a calendar object (its overrides and reminders go with it, as with any delete). */
  async remove(collection: string, name: string, ifMatch?: string): Promise<boolean> {
    const found = await this.find(collection, name);
    if (found === null) return false;
    if (ifMatch !== undefined && !matchesEtag(ifMatch, `"${found.object.version}"`)) throw new DavWriteError(412, 'the resource changed (If-Match)');
    const type: RecordType = collection === TASKS ? 'tasks' : 'events';
    await this.pushOrThrow({ [type]: [{ uid: found.object.root.uid, op: 'delete', baseVersion: found.object.root.version.toString(), fields: {} }] });
    return true;
  }

  /** MKCALENDAR: a new calendar named by the collection's name; false when it exists. */
  async makeCalendar(collection: string, props: { name?: string; color?: string }): Promise<boolean> {
    if (collection === TASKS || (await this.calendars()).some((c) => c.uid === collection)) return false;
    await this.pushOrThrow({ calendars: [{ uid: collection, op: 'upsert', baseVersion: null, fields: { name: props.name ?? collection, ...(props.color ? { color: props.color } : {}) } }] });
    return true;
  }

  /** PROPPATCH of a calendar's display name and colour. */
  async patchCalendar(collection: string, props: { name?: string; color?: string }): Promise<void> {
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
   * The record uid of an object a client creates: derived from its iCalendar UID (as an import
   * derives it, so RELATED-TO and a later import name the same record), or from the UID and the
   * tombstone's version when that record was deleted (a tombstone is final). A live record of that
   * UID under another resource name is RFC 4791's no-uid-conflict (409).
   */
  private async newUid(collection: string, icalUid: string): Promise<string> {
    const uid = recordUidFor(icalUid);
    const existing = (await this.sync.readObjects(this.userId, scopeOf(collection), [uid])).roots[0];
    if (existing === undefined) return uid;
    if (existing.deleted === null) throw new DavWriteError(409, `UID ${icalUid} is stored under another resource name`, 'no-uid-conflict');
    return recordUidFor(`${icalUid}/${existing.version}`);
  }

  private async pushWrites(writes: readonly ObjectWrite[], current: IcalObject | null): Promise<void> {
    const versions = new Map<string, string>();
    for (const r of current === null ? [] : [current.root, ...current.overrides, ...current.reminders]) versions.set(`${r.type}/${r.uid}`, r.version.toString());
    const changeset: Partial<Record<RecordType, PushItem[]>> = {};
    for (const w of writes) {
      const item: PushItem = { uid: w.uid, op: w.op === 'delete' ? 'delete' : 'upsert', baseVersion: w.op === 'create' ? null : (versions.get(`${w.type}/${w.uid}`) ?? null), fields: w.fields };
      (changeset[w.type] ??= []).push(item);
    }
    await this.pushOrThrow(changeset);
  }

  private async pushOrThrow(changeset: Partial<Record<RecordType, PushItem[]>>): Promise<void> {
    const answer = await this.sync.push(this.userId, changeset as PushChangeset, this.deviceUid);
    for (const type of RECORD_TYPES) {
      for (const result of answer[type]) {
        if (result.status === 'error') {
          const status = result.error.code === 'UNKNOWN_REFERENCE' ? 409 : 403;
          throw new DavWriteError(status, `${type} ${result.uid}: ${result.error.message}`, 'valid-calendar-object-resource');
        }
      }
    }
  }
}

/** The writes of a parsed object against what the records hold now. */
function planObject(object: ParsedObject, current: IcalObject | null, uid: string, collection: string): ObjectWrite[] {
  const live = (rows: readonly RecordRow[]) => rows.filter((r) => r.deleted === null).map((r) => ({ uid: r.uid, fields: r.fields }));
  const now = {
    root: current === null ? null : { uid: current.root.uid, fields: current.root.fields },
    overrides: current === null ? [] : live(current.overrides),
    reminders: current === null ? [] : live(current.reminders),
  };
  return object.kind === 'event' ? planEventObject(now, object, uid, collection) : planTaskObject(now, object, uid);
}

/** The object with the resource name kept in its extras when the name is not `<uid>.ics` (never written out: see @calsync/ical). */
function withHref(object: ParsedObject, uid: string, name: string): ParsedObject {
  if (name === `${uid}.ics`) return object;
  const fields = object.kind === 'event' ? object.root.fields : object.fields;
  const component = object.kind === 'event' ? 'VEVENT' : 'VTODO';
  const extras = typeof fields.icalExtras === 'string' ? fields.icalExtras : `BEGIN:${component}\r\nEND:${component}`;
  const kept = extras.replace(/\r?\nX-CALSYNC-HREF:[^\r\n]*/g, '').replace(/(\r?\nEND:V[A-Z]+)$/, `\r\nX-CALSYNC-HREF:${name}$1`);
  if (object.kind === 'event') return { ...object, root: { ...object.root, fields: { ...object.root.fields, icalExtras: kept } } };
  return { ...object, fields: { ...object.fields, icalExtras: kept } };
}

/** Whether an If-Match header names `etag` (or is `*`). */
function matchesEtag(header: string, etag: string): boolean {
  return header.split(',').some((t) => t.trim() === '*' || t.trim().replace(/^W\//, '') === etag);
}

/** The iCalendar UID of an object (for multiget answers and logs). */
export { icalUidOf };

/** DomainError passes through unchanged; re-exported for the routes. */
export { DomainError };
