import { descendantsOf, type RecordType } from '@calsync/domain/rules';
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
