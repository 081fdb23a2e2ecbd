/** The four synchronised record types, named as the push/pull arrays on the wire. */
export const RECORD_TYPES = ['calendars', 'events', 'tasks', 'reminders'] as const;
/** A synchronised record type; also the push order (calendars, events, tasks, reminders). */
export type RecordType = (typeof RECORD_TYPES)[number];

/** `entityType` of conflict records, per record type. */
export const ENTITY_TYPE = {
  calendars: 'CALENDAR',
  events: 'EVENT',
  tasks: 'TASK',
  reminders: 'REMINDER',
} as const satisfies Record<RecordType, string>;
/** `CALENDAR` | `EVENT` | `TASK` | `REMINDER`. */
export type EntityType = (typeof ENTITY_TYPE)[RecordType];

/**
 * How a field is validated and stored:
 * - text: string within `maxLength` (and `minLength`)
 * - boolean, integer (within min..max)
 * - datetime: ISO 8601 instant, normalised to `Date#toISOString()` form; SQL timestamptz
 * - eventtime: an event's time: an instant (as datetime) or, for an all-day event, a floating date
 *   `YYYY-MM-DD`; which of the two a record needs is settled on its merged state (`settleFields`);
 *   SQL text, so a date stays a date
 * - color: `#RRGGBB`; timezone: an IANA zone name
 * - rrule: RFC 5545 RRULE value without `RRULE:` prefix; exdate: comma-separated ISO 8601 times
 * - ref: the uid of a live record of `ref` type owned by the same user
 * - moves: comma-separated `from/to` pairs of event times (a series' earlier starts and where each
 *   move put it), instants normalised as datetime
 */
export type FieldKind = 'text' | 'boolean' | 'integer' | 'datetime' | 'eventtime' | 'color' | 'timezone' | 'rrule' | 'exdate' | 'ref' | 'link' | 'moves';

/** One row of a record type's field table. Everything about a field is data here. */
export interface FieldSpec {
  /** camelCase name on the wire. */
  readonly name: string;
  /** snake_case column name in SQL. */
  readonly column: string;
  readonly kind: FieldKind;
  /** May be null (pushing `null` clears it). */
  readonly nullable: boolean;
  /** Must be present (and non-null) when the item creates the row. */
  readonly requiredOnCreate: boolean;
  /** Set when the record is created, never changed afterwards (a patch that changes it is INVALID_FIELD). */
  readonly immutable?: boolean;
  /**
   * For kind `ref`: the referenced record type. For kind `link`: the type of the record it names,
   * which is no reference: never checked to exist, never cascaded, kept when that record goes.
   */
  readonly ref?: RecordType;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly min?: number;
  readonly max?: number;
}

/** A value of a record field as held in the domain and sent on the wire. */
export type FieldValue = string | number | boolean | null;
/** Field values by wire name. An absent key means "unchanged" in a patch. */
export type FieldValues = Readonly<Record<string, FieldValue>>;

/**
 * A stored record row as the store hands it to the domain. Timestamps are ISO 8601 strings
 * (`Date#toISOString()` form); `deleted` non-null marks a tombstone.
 */
export interface RecordRow {
  readonly type: RecordType;
  readonly id: number;
  readonly userId: number;
  readonly uid: string;
  readonly version: bigint;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly deleted: string | null;
  readonly fields: FieldValues;
}

/** A record as it travels in pull responses and loser snapshots: fields plus stamps, version as string. */
export interface WireRecord {
  readonly [field: string]: FieldValue | undefined;
  readonly id?: number;
  readonly uid: string;
  readonly version: string | null;
  readonly deleted?: string | null;
  readonly createdAt?: string;
  readonly updatedAt?: string;
}
