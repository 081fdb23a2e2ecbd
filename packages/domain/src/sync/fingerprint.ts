import { createHash } from 'node:crypto';
import { validatePatch } from '../records/field-validation.js';
import type { RecordType } from '../records/types.js';
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
 * The idempotency fingerprint of a pushed item: sha256 of the canonical JSON of its op,
 * baseVersion and normalised fields (a delete's fields do not count). Null when the fields do not
 * validate: such an item is an error result, and errors are never stored.
 */
export function pushItemFingerprint(type: RecordType, item: PushItem): string | null {
  let fields: unknown = {};
  if (typeof item.uid !== 'string') return null;
  if (item.op === 'upsert') {
    const checked = validatePatch(type, item.fields);
    if (!checked.ok) return null;
    fields = checked.value;
  }
  const text = canonicalJson({ op: item.op, baseVersion: item.baseVersion, fields });
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
