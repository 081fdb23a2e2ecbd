import { parseIsoInstant } from './datetime.js';
import { FIELD_TABLES } from './field-tables.js';
import { listEntries } from './field-validation.js';
import type { FieldSpec, FieldValue, FieldValues, RecordType } from './types.js';

/**
 * What a device's stale upsert cost the version it replaced (the conflict's loser), read by the
 * device that pushed it from three things it knows: the fields it sent, their values at the version
 * it had seen (`base`), and the loser snapshot the push answer carries.
 *
 * - `kept`: nothing of the loser is gone. Each sent field either left the other device's value as it
 *   was (the other device did not change that field since `base`), or wrote the same value.
 * - `merge`: nothing is gone once `patch` is written. Both devices changed a set field (`exdate`,
 *   whose entries are occurrences): the patch is the three-way merge, the sent entries with the
 *   other device's additions and without its removals.
 * - `lost`: a field both devices set to different values (`fields`); only a person can choose.
 *
 * A field sent without a known base (an edit queued by an older client) is `lost` unless the two
 * values agree. The rule reads the field tables, so it is the same for the four record types.
 */
export type StaleWriteOutcome =
  | { readonly kind: 'kept' }
  | { readonly kind: 'merge'; readonly patch: FieldValues }
  | { readonly kind: 'lost'; readonly fields: readonly string[] };

export function settleStaleWrite(type: RecordType, sent: FieldValues, base: FieldValues | undefined, loser: FieldValues): StaleWriteOutcome {
  const patch: Record<string, FieldValue> = {};
  const lost: string[] = [];
  for (const spec of FIELD_TABLES[type]) {
    if (!(spec.name in sent)) continue;
    const mine = sent[spec.name] ?? null;
    const theirs = loser[spec.name] ?? null;
    if (sameValue(spec, mine, theirs)) continue;
    const known = base !== undefined && spec.name in base;
    const before = known ? (base[spec.name] ?? null) : null;
    if (known && sameValue(spec, before, theirs)) continue;
    const merged = known && spec.kind === 'exdate' ? mergedList(spec, mine, before, theirs) : undefined;
    if (merged === undefined) lost.push(spec.name);
    else if (!sameValue(spec, merged, mine)) patch[spec.name] = merged;
  }
  if (lost.length > 0) return { kind: 'lost', fields: lost };
  return Object.keys(patch).length > 0 ? { kind: 'merge', patch } : { kind: 'kept' };
}

/** An exdate entry as the occurrence it names: one instant however it was written. */
function entryKey(entry: string): string {
  const instant = parseIsoInstant(entry);
  return instant === null ? entry : String(instant.getTime());
}

function sameValue(spec: FieldSpec, a: FieldValue, b: FieldValue): boolean {
  if (spec.kind !== 'exdate') return a === b || (spec.kind === 'eventtime' && typeof a === 'string' && typeof b === 'string' && parseIsoInstant(a)?.getTime() === parseIsoInstant(b)?.getTime());
  const keys = (v: FieldValue): Set<string> => new Set(listEntries(v).map(entryKey));
  const [x, y] = [keys(a), keys(b)];
  return x.size === y.size && [...x].every((k) => y.has(k));
}

/**
 * `mine` with the entries the other device added since `base` and without those it removed (a
 * move re-keys them: the old key goes, the new one comes); undefined when the result would not fit
 * the field, so the push cannot be refused.
 */
function mergedList(spec: FieldSpec, mine: FieldValue, base: FieldValue, theirs: FieldValue): FieldValue | undefined {
  const keyed = (v: FieldValue): Map<string, string> => new Map(listEntries(v).map((e) => [entryKey(e), e]));
  const [before, other] = [keyed(base), keyed(theirs)];
  const out = new Map([...keyed(mine)].filter(([k]) => !before.has(k) || other.has(k)));
  for (const [k, e] of other) if (!before.has(k) && !out.has(k)) out.set(k, e);
  const text = [...out.values()].join(',');
  if (spec.maxLength !== undefined && text.length > spec.maxLength) return undefined;
  return text === '' ? null : text;
}
