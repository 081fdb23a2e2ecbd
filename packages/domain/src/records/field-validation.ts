import { parseDateOnly, parseIsoInstant, storedInstant } from './datetime.js';
import { FIELD_TABLES } from './field-tables.js';
import { type Checked, fail, itemError, ok } from './item-error.js';
import { isValidRrule } from './rrule.js';
import { unstorableTextReason } from './storable-text.js';
import type { FieldSpec, FieldValue, FieldValues, RecordType } from './types.js';

/** The form of a record uid and of every reference to one (docs/protocol.md); HTTP schemas use its `source`. */
export const UID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * A version on the wire: decimal digits without leading zeros, at most 19 (a 64-bit integer).
 * Versions, baseVersions and cursor watermarks all use it; HTTP schemas use its `source`.
 */
export const VERSION_PATTERN = /^(0|[1-9][0-9]{0,18})$/;

/** Largest version a BIGINT holds (2^63-1); a baseVersion or watermark above it names no row. */
export const MAX_VERSION = (1n << 63n) - 1n;

/**
 * A version text (baseVersion, cursor watermark) as a bigint, or null when it is not one: not
 * `VERSION_PATTERN`, or above `MAX_VERSION`. The one place a version from outside is parsed.
 */
export function parseVersion(text: unknown): bigint | null {
  if (typeof text !== 'string' || !VERSION_PATTERN.test(text)) return null;
  const value = BigInt(text);
  return value > MAX_VERSION ? null : value;
}

/**
 * Keys a client may send that are server stamps or legacy fields: silently dropped, never applied
 * (createdAt/updatedAt are "ignored and never applied in push"; legacy fields are ignored).
 * The one list: the HTTP push schema accepts the same keys.
 */
export const IGNORED_PUSH_KEYS: ReadonlySet<string> = new Set([
  'id', 'uid', 'op', 'baseVersion', 'version', 'createdAt', 'updatedAt', 'deleted', 'syncStatus', 'lastSyncTime',
]);

const COLOR = /^#[0-9A-Fa-f]{6}$/;
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;
const KNOWN_ZONES: ReadonlySet<string> = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);

/** True for an IANA zone name (canonical names, plus aliases the runtime knows, such as Etc/UTC). */
export function isValidTimezone(zone: string): boolean {
  if (KNOWN_ZONES.has(zone)) return true;
  if (!ZONE_NAME.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The entries of a comma-separated list field (exdate, moves); none when it is unset. */
export function listEntries(value: FieldValue | undefined): string[] {
  return typeof value === 'string' ? value.split(',').map((x) => x.trim()).filter(Boolean) : [];
}

/** True for a comma-separated list of ISO 8601 instants (blanks around items tolerated). */
export function isValidExdate(text: string): boolean {
  return text.split(',').every((p) => parseIsoInstant(p.trim()) !== null);
}

function invalid(spec: FieldSpec, why: string): Checked<FieldValue> {
  return fail(itemError('INVALID_FIELD', `${spec.name}: ${why}`));
}

/** Checks one non-null value against its field spec and returns the normalised value. */
function validateValue(spec: FieldSpec, value: unknown): Checked<FieldValue> {
  // Before any kind's rule: no string PostgreSQL cannot store goes further, whatever its kind.
  const unstorable = typeof value === 'string' ? unstorableTextReason(value) : null;
  if (unstorable !== null) return invalid(spec, unstorable);
  switch (spec.kind) {
    case 'text': {
      if (typeof value !== 'string') return invalid(spec, 'must be a string');
      if (spec.minLength !== undefined && value.length < spec.minLength) {
        return invalid(spec, `must have at least ${spec.minLength} characters`);
      }
      if (spec.maxLength !== undefined && value.length > spec.maxLength) {
        return invalid(spec, `must have at most ${spec.maxLength} characters`);
      }
      return ok(value);
    }
    case 'boolean':
      return typeof value === 'boolean' ? ok(value) : invalid(spec, 'must be a boolean');
    case 'integer': {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return invalid(spec, 'must be an integer');
      if ((spec.min !== undefined && value < spec.min) || (spec.max !== undefined && value > spec.max)) {
        return invalid(spec, `must be between ${spec.min ?? '-inf'} and ${spec.max ?? 'inf'}`);
      }
      return ok(value);
    }
    case 'datetime': {
      const instant = typeof value === 'string' ? storedInstant(value) : null;
      return instant !== null ? ok(instant) : invalid(spec, 'must be an ISO 8601 date-time in years 0001 to 9999');
    }
    case 'eventtime': {
      // A date stays a date here; whether the event needs a date or an instant is settled on its whole state (settleEvent).
      const time = typeof value === 'string' ? storedEventTime(value) : null;
      return time !== null ? ok(time) : invalid(spec, 'must be an ISO 8601 date-time or a date YYYY-MM-DD');
    }
    case 'color':
      return typeof value === 'string' && COLOR.test(value) ? ok(value) : invalid(spec, 'must be #RRGGBB');
    case 'timezone':
      return typeof value === 'string' && isValidTimezone(value) ? ok(value) : invalid(spec, 'must be an IANA time zone');
    case 'rrule': {
      const good =
        typeof value === 'string' && (spec.maxLength === undefined || value.length <= spec.maxLength) && isValidRrule(value);
      return good ? ok(value) : fail(itemError('INVALID_RRULE', 'invalid rrule'));
    }
    case 'exdate': {
      const good =
        typeof value === 'string' && (spec.maxLength === undefined || value.length <= spec.maxLength) && isValidExdate(value);
      return good ? ok(value) : fail(itemError('INVALID_EXDATE', 'invalid exdate'));
    }
    case 'ref':
    case 'link':
      return typeof value === 'string' && UID_PATTERN.test(value) ? ok(value) : invalid(spec, 'must be a uid');
    case 'moves': {
      const moves = typeof value === 'string' && (spec.maxLength === undefined || value.length <= spec.maxLength) ? normalisedMoves(value) : null;
      return moves !== null ? ok(moves) : invalid(spec, 'must be comma-separated from/to pairs of ISO 8601 date-times or dates YYYY-MM-DD');
    }
  }
}

/** An event time as stored: a date stays, an instant in `toISOString` form; null when it is neither. */
function storedEventTime(text: string): string | null {
  return parseDateOnly(text) ?? storedInstant(text);
}

/** A `moves` value with its times in stored form, or null when it is not comma-separated `from/to` pairs. */
function normalisedMoves(text: string): string | null {
  const pairs: string[] = [];
  for (const pair of text.split(',')) {
    const parts = pair.trim().split('/');
    const times = parts.map((p) => storedEventTime(p.trim()));
    if (parts.length !== 2 || times.includes(null)) return null;
    pairs.push(times.join('/'));
  }
  return pairs.join(',');
}

/**
 * Validates and normalises the field patch of a pushed upsert against the type's field table.
 * Unknown keys are INVALID_FIELD; server stamps and legacy fields are dropped; null is accepted only
 * for nullable fields; datetimes come back in `Date#toISOString()` form. The patch's keys are in
 * sorted order: `checkPushItem` writes its canonical JSON with one JSON.stringify.
 */
export function validatePatch(type: RecordType, fields: Readonly<Record<string, unknown>>): Checked<FieldValues> {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    return fail(itemError('INVALID_FIELD', 'fields must be an object'));
  }
  const specs = FIELD_TABLES[type];
  const patch: Record<string, FieldValue> = {};
  for (const key of Object.keys(fields).sort()) {
    if (IGNORED_PUSH_KEYS.has(key)) continue;
    const spec = specs.find((s) => s.name === key);
    if (spec === undefined) return fail(itemError('INVALID_FIELD', `unknown field ${key}`));
    const value = fields[key];
    if (value === undefined) continue;
    if (value === null) {
      if (!spec.nullable) return fail(itemError('INVALID_FIELD', `${key}: may not be null`));
      patch[key] = null;
      continue;
    }
    const checked = validateValue(spec, value);
    if (!checked.ok) return checked;
    patch[key] = checked.value;
  }
  return ok(patch);
}
