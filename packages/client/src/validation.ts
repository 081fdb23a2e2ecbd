import {
  checkImmutable,
  checkRequiredOnCreate,
  createFields,
  UID_PATTERN,
  settleFields,
  validatePatch,
  type FieldValue,
  type ItemErrorCode,
  type RecordType,
} from '@calsync/domain/rules';
import type { StoredRecord } from './store/local-store.js';

/** A local write refused before it reaches the outbox, with the code the server would have given. */
export class LocalValidationError extends Error {
  constructor(readonly code: ItemErrorCode | 'INVALID_UID', message: string) {
    super(message);
    this.name = 'LocalValidationError';
  }
}

/**
 * Checks a put with the domain's own field tables and rules (the server runs the same ones):
 * field kinds and ranges, rrule and exdate, required fields on create, the cross-field rules.
 * Returns the normalised patch (datetimes in `toISOString` form) holding only the fields whose value
 * differs from the local record, or throws.
 */
export function checkPut(type: RecordType, uid: string, existing: StoredRecord | undefined, input: Readonly<Record<string, unknown>>): Record<string, FieldValue> {
  if (!UID_PATTERN.test(uid)) throw new LocalValidationError('INVALID_UID', `uid must be 1..128 characters of A-Z a-z 0-9 _ -`);
  const checked = validatePatch(type, input);
  if (!checked.ok) throw new LocalValidationError(checked.error.code, checked.error.message);
  const patch = { ...checked.value };
  const merged = existing ? { ...existing.fields, ...patch } : createFields(type, patch);
  const problem = existing ? checkImmutable(type, existing.fields, patch) : checkRequiredOnCreate(type, merged);
  if (problem) throw new LocalValidationError(problem.code, problem.message);
  const settled = settleFields(type, merged);
  if (!settled.ok) throw new LocalValidationError(settled.error.code, settled.error.message);
  // The patch carries each field as the server will store it (an all-day time as its date), plus
  // any field the rules changed beyond the patch.
  for (const [name, value] of Object.entries(settled.value)) {
    if (name in patch || (existing && value !== existing.fields[name])) patch[name] = value;
  }
  // A patch is what changed (docs/protocol.md: an absent field means unchanged): a field given with
  // the value the local record already has is not sent, so another device's edit of it survives.
  if (existing) for (const name of Object.keys(patch)) if (patch[name] === existing.fields[name]) delete patch[name];
  return patch;
}
