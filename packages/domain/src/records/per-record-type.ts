import { RECORD_TYPES, type RecordType } from './types.js';

/** One value per record type, built from RECORD_TYPES, so no per-type literal lists the four by hand. */
export function perRecordType<T>(make: (type: RecordType) => T): Record<RecordType, T> {
  return Object.fromEntries(RECORD_TYPES.map((type) => [type, make(type)])) as Record<RecordType, T>;
}
