import * as crypto from 'node:crypto';
import { validatePatch } from '../records/field-validation.js';
import type { Checked } from '../records/item-error.js';
import type { FieldValues, RecordType } from '../records/types.js';
import type { PushItem } from './types.js';

/** JSON with object keys sorted at every level, so equal values always give equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

/**
 * SHA-256 of a text's UTF-8 bytes as hex. The one-shot `crypto.hash` (Node 20.12 and later) makes
 * no Hash object, where createHash().update().digest() cost a push about as much as hashing itself;
 * an older Node (the engines allow 20.0) takes the long way.
 */
const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/** A pushed item's fields checked once, and its idempotency fingerprint (null when it has none). */
export interface CheckedPushItem {
  readonly fingerprint: string | null;
  /** `validatePatch` of an upsert's fields; null for a delete or an item without a string uid. */
  readonly patch: Checked<FieldValues> | null;
}

/**
 * Validates a pushed item's fields and computes its idempotency fingerprint in one pass, so the push
 * path checks and hashes each item once. The fingerprint is sha256 of the canonical JSON of its op,
 * baseVersion and normalised fields (a delete's fields do not count); null when the fields do not
 * validate: such an item is an error result, and errors are never stored.
 */
export function checkPushItem(type: RecordType, item: PushItem): CheckedPushItem {
  let fields = '{}';
  if (typeof item.uid !== 'string') return { fingerprint: null, patch: null };
  let patch: Checked<FieldValues> | null = null;
  if (item.op === 'upsert') {
    patch = validatePatch(type, item.fields);
    if (!patch.ok) return { fingerprint: null, patch };
    // validatePatch writes the patch's keys in sorted order (field names, none an array index) with
    // values that are null, booleans, numbers or strings: one JSON.stringify writes its canonical
    // JSON, where canonicalJson sorts and quotes key by key (a sixth of a pushed item's checks).
    fields = JSON.stringify(patch.value);
  }
  // canonicalJson({ op, baseVersion, fields }): its members in sorted order, an undefined one left out.
  const baseVersion = item.baseVersion === undefined ? '' : `"baseVersion":${canonicalJson(item.baseVersion)},`;
  const op = item.op === undefined ? '' : `,"op":${canonicalJson(item.op)}`;
  const text = `{${baseVersion}"fields":${fields}${op}}`;
  return { fingerprint: sha256Hex(text), patch };
}
