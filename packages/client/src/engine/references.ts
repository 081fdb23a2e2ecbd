import { descendantsOf, referenceFields, type RecordType } from '@calsync/domain/rules';
import type { StoredRecord } from '../store/local-store.js';

/**
 * A record and every local record that hangs below it: what the server's cascade deletes with it,
 * walked by the domain's own rule (`descendantsOf`) over the local records.
 */
export function withDescendants(records: Record<RecordType, Map<string, StoredRecord>>, type: RecordType, uid: string): StoredRecord[] {
  const root = records[type].get(uid);
  if (!root) return [];
  const children = (link: { type: RecordType; field: string }, parentUid: string): StoredRecord[] =>
    [...records[link.type].values()].filter((child) => child.fields[link.field] === parentUid);
  return [root, ...descendantsOf(root, children)];
}

/**
 * Whether a record with `fields` hangs below a record this device deleted while the delete has
 * not yet reached the server (its parent, or a parent further up, has a delete queued): the local
 * delete took it away with its parent, and the server's cascade will too once the delete arrives,
 * so a pulled copy of it stays gone. `fieldsOf` finds a parent that is no longer local (the pull
 * page's copy); the walk follows the domain's reference fields, a visited set guarding cycles.
 */
export function underQueuedDelete(
  type: RecordType,
  fields: Readonly<Record<string, unknown>>,
  deleteQueued: (type: RecordType, uid: string) => boolean,
  fieldsOf: (type: RecordType, uid: string) => Readonly<Record<string, unknown>> | undefined,
): boolean {
  const seen = new Set<string>();
  const queue: { type: RecordType; fields: Readonly<Record<string, unknown>> }[] = [{ type, fields }];
  while (queue.length > 0) {
    const child = queue.shift()!;
    for (const spec of referenceFields(child.type)) {
      const parentUid = child.fields[spec.name];
      if (typeof parentUid !== 'string' || spec.ref === undefined) continue;
      const key = `${spec.ref}\u0000${parentUid}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (deleteQueued(spec.ref, parentUid)) return true;
      const parent = fieldsOf(spec.ref, parentUid);
      if (parent !== undefined) queue.push({ type: spec.ref, fields: parent });
    }
  }
  return false;
}
