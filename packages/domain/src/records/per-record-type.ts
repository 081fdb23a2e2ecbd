import { RECORD_TYPES, type RecordType } from './types.js';

/**
 * One value per record type, built from RECORD_TYPES, so no per-type literal lists the four by hand.
 * Filled in a loop: a push makes some twenty of these, and `Object.fromEntries` over mapped pairs
 * made three arrays for each.
 */
export function perRecordType<T>(make: (type: RecordType) => T): Record<RecordType, T> {
  const out = {} as Record<RecordType, T>;
  for (const type of RECORD_TYPES) out[type] = make(type);
  return out;
}
