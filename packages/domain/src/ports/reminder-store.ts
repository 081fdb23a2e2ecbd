import type { EventSource } from '../calendar/occurrence.js';
import type { FieldValues } from '../records/types.js';
import type { ReminderAlert } from './change-feed.js';

/** A live record as the reminder rules read it. */
export interface SourceRecord {
  readonly uid: string;
  readonly fields: FieldValues;
}

/**
 * What one user's reminders are planned from: the live reminders, the live events they name (with
 * the overrides of a named series), the live tasks they name, and the zones of the user's calendars.
 */
export interface ReminderSources {
  readonly reminders: readonly SourceRecord[];
  readonly events: readonly EventSource[];
  readonly tasks: readonly SourceRecord[];
  /** Calendar uid → its zone (null: none set). */
  readonly calendarZones: ReadonlyMap<string, string | null>;
}

/** The next due time of one reminder: the scheduler looks at its user again then. */
export interface PlannedReminder {
  readonly reminderUid: string;
  /** ISO instant. */
  readonly dueAt: string;
}

/** What became of one (reminder, occurrence): sent to the devices, skipped (older than REMINDER_GRACE), or not sent (eventReminders off). */
export type DeliveryOutcome = 'sent' | 'skipped' | 'off';

/** One (reminder, occurrence) the scheduler settled. */
export interface DeliveryRecord {
  readonly userId: number;
  readonly reminderUid: string;
  /** Names the occurrence: its start (an event's occurrence, a task's dueAt) or the reminder's remindAt. */
  readonly occurrenceStart: string;
  readonly dueAt: string;
  readonly outcome: DeliveryOutcome;
  readonly recordedAt: string;
  /** Announced on the change feed in the same transaction when the record is new and the outcome is `sent`. */
  readonly alert: ReminderAlert | null;
}

/**
 * Storage of the reminder scheduler. It reads and writes many users at once: a tick settles all the
 * users due in a fixed handful of statements (`ReminderScheduler` says why). Guarantees (checked by the
 * reminder store contract suite in testkit, on every adapter):
 * - `recordDeliveries` stores each (user, reminder, occurrenceStart) at most once, across nodes and
 *   restarts, and answers true only for the records this call stored; the alert of a stored `sent`
 *   record reaches every change feed subscriber once the record commits, and never otherwise;
 * - `replacePlans` leaves exactly the given plans for each user it names, and touches no other user;
 * - `usersDueBy` names each user with a plan due at or before the instant once.
 */
export interface ReminderStore {
  /** The sources of each user asked for (every one is in the answer; a user without reminders has empty lists). */
  readSources(userIds: readonly number[]): Promise<ReadonlyMap<number, ReminderSources>>;
  /** For each user in `plans`, replaces that user's plan with the given one (an empty list clears it). */
  replacePlans(plans: ReadonlyMap<number, readonly PlannedReminder[]>): Promise<void>;
  /** Users with a plan due at or before `until` (ISO instant), earliest first, at most `limit`. */
  usersDueBy(until: string, limit: number): Promise<number[]>;
  /** Users with at least one live reminder and an id above `afterUserId`, ascending, at most `limit` (a full re-plan walks them). */
  usersWithReminders(afterUserId: number, limit: number): Promise<number[]>;
  /** Stores the records not stored yet, all in one transaction; per record, whether this call stored it. */
  recordDeliveries(records: readonly DeliveryRecord[]): Promise<boolean[]>;
  /** Forgets delivery records due before `before` (they can never be candidates again); the number removed. */
  pruneDeliveries(before: string, limit: number): Promise<number>;
}
