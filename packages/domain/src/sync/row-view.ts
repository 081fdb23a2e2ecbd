import type { RecordRow, RecordType } from '../records/types.js';

/**
 * The rows a decision may look at, read synchronously: the store's rows that the planner loaded
 * for this item, overlaid with everything decided earlier in the same batch. Decisions are pure
 * functions of this view, so per-item and whole-batch persistence give the same results.
 */
export interface RowView {
  /** The row (live or tombstone) of this type and uid, or null when absent. */
  get(type: RecordType, uid: string): RecordRow | null;
  /** The user's live default calendars, oldest id first (rows created in this batch come last). */
  liveDefaultCalendars(): readonly RecordRow[];
  /** Live rows of `type` whose reference field `field` holds `parentUid`. */
  liveReferencing(type: RecordType, field: string, parentUid: string): readonly RecordRow[];
}

/** A row's new state decided by the domain; the planner stamps version, id and timestamps. */
export interface RowChange {
  readonly type: RecordType;
  readonly uid: string;
  readonly fields: Readonly<Record<string, string | number | boolean | null>>;
  /** True to make (or keep) the row a tombstone, false for a live row. */
  readonly deleted: boolean;
}
