import { perRecordType } from '../records/per-record-type.js';
import type { RecordType } from '../records/types.js';

/** How many of `rows` are of each type: what `SyncUnitOfWork.reserve` is asked for as `rowIds`. */
export function countPerType(rows: Iterable<{ readonly type: RecordType }>): Record<RecordType, number> {
  const counts = perRecordType(() => 0);
  for (const row of rows) counts[row.type]++;
  return counts;
}

/** Hands out the row ids `reserve` drew, per type in the order they were drawn. */
export function reservedIdTaker(rowIds: Readonly<Record<RecordType, readonly number[]>>): (type: RecordType) => number {
  const taken = perRecordType(() => 0);
  return (type) => {
    const id = rowIds[type][taken[type]++];
    if (id === undefined) throw new Error(`more ${type} rows than ids reserved for them`);
    return id;
  };
}
