import { FIELD_TABLES, RECORD_TYPES, type RecordType } from '@calsync/domain/records';
import type { StoredRecord } from '../store/local-store.js';

/** A reference field: records of `type` point at a record of `target` through `field`. */
export interface ReferenceLink {
  readonly type: RecordType;
  readonly field: string;
  readonly target: RecordType;
}

/** Every reference field of every record type, read from the domain's field tables. */
export const REFERENCE_LINKS: readonly ReferenceLink[] = RECORD_TYPES.flatMap((type) =>
  FIELD_TABLES[type].flatMap((f) => (f.kind === 'ref' && f.ref ? [{ type, field: f.name, target: f.ref }] : [])),
);

/**
 * A record and every local record that hangs below it (a calendar's events, an event's reminders,
 * a task's subtasks and reminders, recursively): what the server's cascade deletes with it.
 */
export function withDescendants(records: Record<RecordType, Map<string, StoredRecord>>, type: RecordType, uid: string): StoredRecord[] {
  const out: StoredRecord[] = [];
  const seen = new Set<string>();
  const visit = (t: RecordType, u: string): void => {
    const key = `${t}\u0000${u}`;
    const record = records[t].get(u);
    if (!record || seen.has(key)) return;
    seen.add(key);
    out.push(record);
    for (const link of REFERENCE_LINKS) {
      if (link.target !== t) continue;
      for (const child of records[link.type].values()) if (child.fields[link.field] === u) visit(link.type, child.uid);
    }
  };
  visit(type, uid);
  return out;
}
