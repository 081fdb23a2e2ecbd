import { parseVersion, UID_PATTERN, validatePatch } from '../records/field-validation.js';
import { type Checked, type ItemError, itemError } from '../records/item-error.js';
import { applyPatch, checkImmutable, checkRequiredOnCreate, createFields, settleFields } from '../records/record-state.js';
import type { FieldValues, RecordRow, RecordType } from '../records/types.js';
import { cascadeDeletes, checkReferences, demoteOtherDefaults } from '../rules/references.js';
import type { RowChange, RowView } from './row-view.js';
import type { PushItem } from './types.js';

/** The losing state a conflict stores: `row`'s stamps with these fields and this version. */
export interface LoserSpec {
  readonly row: RecordRow;
  readonly fields: FieldValues;
  readonly version: bigint | null;
}

/** A row a result reports (its uid, id and version after the writes). */
export interface RowRef {
  readonly type: RecordType;
  readonly uid: string;
}

/**
 * What to do with one pushed item ("decide, then persist"). `writes` are applied in order, each
 * with its own new version; the result reports `report`'s uid, id and version after them (or
 * version null when `report` is null); a `loser` makes a conflict record whose winner is `report`.
 */
export type PushDecision =
  | { readonly kind: 'error'; readonly error: ItemError }
  | {
      readonly kind: 'apply';
      readonly status: 'created' | 'updated' | 'deleted' | 'conflict';
      readonly writes: readonly RowChange[];
      readonly report: RowRef | null;
      readonly loser?: LoserSpec;
    };

/** Input of `decidePushItem`: the item, its type, and the rows it may look at. */
export interface PushItemInput {
  readonly type: RecordType;
  readonly item: PushItem;
  readonly view: RowView;
  /** `validatePatch(type, item.fields)` when the caller has already run it (the push planner has). */
  readonly patch?: Checked<FieldValues> | null;
}

/** The item's baseVersion as a bigint, null, or an error for anything that is not a 64-bit version text (`parseVersion`). */
export function parseBaseVersion(base: unknown): { ok: true; value: bigint | null } | { ok: false; error: ItemError } {
  if (base === null || base === undefined) return { ok: true, value: null };
  const value = parseVersion(base);
  if (value !== null) return { ok: true, value };
  return { ok: false, error: itemError('INVALID_FIELD', 'baseVersion must be a decimal string or null') };
}

function errorOf(error: ItemError): PushDecision {
  return { kind: 'error', error };
}

/**
 * Decides one pushed item against the current row state: every row of the state table in
 * docs/protocol.md, the default-calendar rule, cascades and reference checks. Pure: it reads only
 * `view` and returns the writes; an error decision writes nothing.
 */
export function decidePushItem(input: PushItemInput): PushDecision {
  const { type, item, view } = input;
  if (typeof item.uid !== 'string' || !UID_PATTERN.test(item.uid)) {
    return errorOf(itemError('INVALID_FIELD', 'uid must be 1..128 characters of [A-Za-z0-9_-]'));
  }
  const base = parseBaseVersion(item.baseVersion);
  if (!base.ok) return errorOf(base.error);
  const row = view.get(type, item.uid);
  const self: RowRef = { type, uid: item.uid };

  if (item.op === 'delete') {
    if (row === null) return { kind: 'apply', status: 'deleted', writes: [], report: null };
    if (row.deleted !== null) return { kind: 'apply', status: 'deleted', writes: [], report: self };
    const writes = [{ type, uid: item.uid, fields: row.fields, deleted: true }, ...cascadeDeletes(row, view)];
    if (base.value === row.version) return { kind: 'apply', status: 'deleted', writes, report: self };
    return { kind: 'apply', status: 'conflict', writes, report: self, loser: { row, fields: row.fields, version: row.version } };
  }
  if (item.op !== 'upsert') return errorOf(itemError('INVALID_FIELD', 'op must be upsert or delete'));

  const checked = input.patch ?? validatePatch(type, item.fields);
  if (!checked.ok) return errorOf(checked.error);
  const patch = checked.value;

  if (row === null) return decideCreate(type, item.uid, patch, view);

  if (row.deleted !== null) {
    // The client edited a record that was deleted meanwhile: the tombstone stays, the edit is kept
    // as the loser so that a restore can bring it back.
    const immutable = checkImmutable(type, row.fields, patch);
    if (immutable) return errorOf(immutable);
    const edited = settleFields(type, applyPatch(row.fields, patch));
    if (!edited.ok) return errorOf(edited.error);
    return { kind: 'apply', status: 'conflict', writes: [], report: self, loser: { row, fields: edited.value, version: base.value } };
  }

  // Live row never seen by the client: the server copy wins and the sent fields are discarded.
  if (base.value === null) return { kind: 'apply', status: 'created', writes: [], report: self };

  const immutable = checkImmutable(type, row.fields, patch);
  if (immutable) return errorOf(immutable);
  const settled = settleFields(type, applyPatch(row.fields, patch));
  if (!settled.ok) return errorOf(settled.error);
  const merged = settled.value;
  const problem = checkReferences(type, item.uid, patch, view);
  if (problem) return errorOf(problem);
  const writes = [...promotionDemotions(type, item.uid, merged, view), { type, uid: item.uid, fields: merged, deleted: false }];
  if (base.value === row.version) return { kind: 'apply', status: 'updated', writes, report: self };
  return { kind: 'apply', status: 'conflict', writes, report: self, loser: { row, fields: row.fields, version: row.version } };
}

function decideCreate(type: RecordType, uid: string, patch: FieldValues, view: RowView): PushDecision {
  if (type === 'calendars' && patch.isDefault === true) {
    const [existing, ...extra] = view.liveDefaultCalendars();
    if (existing !== undefined) {
      // Default-calendar merge: no new row, nothing applied, the existing default is reported.
      const writes = extra.map((r) => ({ type, uid: r.uid, fields: { ...r.fields, isDefault: false }, deleted: false }));
      return { kind: 'apply', status: 'created', writes, report: { type, uid: existing.uid } };
    }
  }
  const created = createFields(type, patch);
  const missing = checkRequiredOnCreate(type, created);
  if (missing) return errorOf(missing);
  const settled = settleFields(type, created);
  if (!settled.ok) return errorOf(settled.error);
  const fields = settled.value;
  const problem = checkReferences(type, uid, patch, view);
  if (problem) return errorOf(problem);
  return { kind: 'apply', status: 'created', writes: [{ type, uid, fields, deleted: false }], report: { type, uid } };
}

/** Demotions that must precede a write leaving calendar `uid` as the default. */
export function promotionDemotions(type: RecordType, uid: string, fields: FieldValues, view: RowView): RowChange[] {
  return type === 'calendars' && fields.isDefault === true ? demoteOtherDefaults(uid, view) : [];
}
