import { FIELD_TABLES, referenceFields } from '../records/field-tables.js';
import { type ItemError, itemError } from '../records/item-error.js';
import { RECORD_TYPES, type FieldValues, type RecordRow, type RecordType } from '../records/types.js';
import type { RowChange, RowView } from '../sync/row-view.js';

/** A reference field of some type that points at records of a given parent type. */
export interface ChildLink {
  readonly type: RecordType;
  readonly field: string;
}

/** The (child type, field) pairs that reference `parent`, read from the field tables. */
export function childLinks(parent: RecordType): readonly ChildLink[] {
  const links: ChildLink[] = [];
  for (const type of RECORD_TYPES) {
    for (const spec of FIELD_TABLES[type]) {
      if (spec.kind === 'ref' && spec.ref === parent) links.push({ type, field: spec.name });
    }
  }
  return links;
}

/**
 * Every live reference a write applies must name a live row of the referenced type (docs/protocol.md
 * UNKNOWN_REFERENCE, retryable: the parent may arrive with a later push). Only fields present in
 * `applied` are checked; a task may not become its own ancestor.
 */
export function checkReferences(
  type: RecordType,
  uid: string,
  applied: FieldValues,
  view: RowView,
): ItemError | null {
  for (const spec of referenceFields(type)) {
    const target = applied[spec.name];
    if (spec.ref === undefined || typeof target !== 'string') continue;
    // Naming itself as parent is a mistake no retry can fix, not a parent that has not arrived yet.
    if (spec.ref === type && target === uid) {
      return itemError('INVALID_FIELD', `${spec.name}: a record cannot be its own ancestor`);
    }
    const row = view.get(spec.ref, target);
    if (row === null || row.deleted !== null) {
      return itemError('UNKNOWN_REFERENCE', `unknown ${spec.name}`, true);
    }
    if (spec.ref === type && createsCycle(type, spec.name, uid, target, view)) {
      return itemError('INVALID_FIELD', `${spec.name}: a record cannot be its own ancestor`);
    }
  }
  return null;
}

/** True when following `field` upwards from `start` reaches `uid` (or loops). */
function createsCycle(type: RecordType, field: string, uid: string, start: string, view: RowView): boolean {
  const seen = new Set<string>();
  let current: string | null = start;
  while (current !== null) {
    if (current === uid || seen.has(current)) return true;
    seen.add(current);
    const parent: unknown = view.get(type, current)?.fields[field];
    current = typeof parent === 'string' ? parent : null;
  }
  return false;
}

/** A record as the cascade walks it: its type, uid and fields. */
export interface RecordNode {
  readonly type: RecordType;
  readonly uid: string;
  readonly fields: FieldValues;
}

/**
 * Every record that hangs below `root` through reference fields (a calendar's events and their
 * reminders, an event's reminders, a task's subtasks recursively and their reminders), breadth
 * first, `root` excluded: what deleting `root` deletes with it. `children(link, parentUid)` gives
 * the live records of `link.type` whose `link.field` holds `parentUid`; a visited set guards
 * against reference cycles. The server's cascade and the client's local delete both walk this.
 */
export function descendantsOf<R extends RecordNode>(root: R, children: (link: ChildLink, parentUid: string) => Iterable<R>): R[] {
  const found: R[] = [];
  const seen = new Set<string>([`${root.type}:${root.uid}`]);
  const queue: R[] = [root];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const link of childLinks(parent.type)) {
      for (const child of children(link, parent.uid)) {
        const key = `${child.type}:${child.uid}`;
        if (seen.has(key)) continue;
        seen.add(key);
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

/**
 * Tombstone changes for every live descendant of `root`, each with its own change, and so its own
 * version.
 */
export function cascadeDeletes(root: RecordRow, view: RowView): RowChange[] {
  return descendantsOf(root, (link, parentUid) => view.liveReferencing(link.type, link.field, parentUid)).map((child) => ({
    type: child.type,
    uid: child.uid,
    fields: child.fields,
    deleted: true,
  }));
}

/** Demotions of the user's live default calendars other than `keepUid`, to run before a promotion. */
export function demoteOtherDefaults(keepUid: string | null, view: RowView): RowChange[] {
  return view
    .liveDefaultCalendars()
    .filter((row) => row.uid !== keepUid)
    .map((row) => ({ type: 'calendars' as const, uid: row.uid, fields: { ...row.fields, isDefault: false }, deleted: false }));
}
