import { perRecordType } from '../records/per-record-type.js';
import { RECORD_TYPES, type RecordType } from '../records/types.js';
import type { ReserveRequest, Reserved } from '../ports/sync-store.js';

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

/**
 * What a unit of work drew ahead of `reserve` (the `ahead` hint of `SyncUnitOfWork.prefetch`),
 * handed out from the front while it covers a request. A store keeps at most one: a later draw
 * (ahead or by `reserve` itself) replaces it, so the versions a unit is handed keep increasing.
 */
export class DrawnAhead {
  readonly #versions: bigint[];
  readonly #rowIds: Record<RecordType, number[]>;
  readonly #conflictIds: number[];

  /** `drawn`: each list ascending. */
  constructor(drawn: Reserved) {
    this.#versions = [...drawn.versions];
    this.#rowIds = perRecordType((type) => [...drawn.rowIds[type]]);
    this.#conflictIds = [...drawn.conflictIds];
  }

  /** The first values of each list as `request` asks, taken out; undefined (nothing taken) when a list is too short. */
  take(request: ReserveRequest): Reserved | undefined {
    const asked = askedCounts(request);
    if (this.#versions.length < asked.versions || this.#conflictIds.length < asked.conflictIds) return undefined;
    if (RECORD_TYPES.some((type) => this.#rowIds[type].length < asked.rowIds[type])) return undefined;
    return {
      versions: this.#versions.splice(0, asked.versions),
      rowIds: perRecordType((type) => this.#rowIds[type].splice(0, asked.rowIds[type])),
      conflictIds: this.#conflictIds.splice(0, asked.conflictIds),
    };
  }
}

/** How many of each `request` asks for, every count present (missing or negative counts are 0). */
export function askedCounts(request: ReserveRequest): { versions: number; rowIds: Record<RecordType, number>; conflictIds: number } {
  const count = (n: number | undefined): number => Math.max(0, n ?? 0);
  return { versions: count(request.versions), rowIds: perRecordType((type) => count(request.rowIds?.[type])), conflictIds: count(request.conflictIds) };
}

/** Whether `request` asks for anything. */
export function asksForAny(request: ReserveRequest): boolean {
  const asked = askedCounts(request);
  return asked.versions > 0 || asked.conflictIds > 0 || RECORD_TYPES.some((type) => asked.rowIds[type] > 0);
}
