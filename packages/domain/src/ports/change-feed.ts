/**
 * A committed change of one user's synchronised data: the newest version it wrote and the device
 * that made it (null for a session without a device), so that device is not told of its own write.
 */
export interface DataChange {
  readonly userId: number;
  readonly version: bigint;
  readonly deviceUid: string | null;
}

/**
 * Sign-in families that ended (logout, device revoke, refresh replay): every open notification
 * stream of that session, or of that device, must close.
 */
export type SessionEnd =
  | { readonly userId: number; readonly sessionId: string }
  | { readonly userId: number; readonly deviceUid: string };

/**
 * A reminder fell due (docs/protocol.md, "Reminders"): what every device of the user is told, on
 * its stream as `event: reminder` and by FCM.
 */
export interface ReminderAlert {
  readonly kind: 'reminder';
  readonly userId: number;
  readonly reminderUid: string;
  /** The event (the override's uid for a moved occurrence) or the task it reminds of; neither for a bare `remindAt`. */
  readonly eventUid?: string;
  readonly taskUid?: string;
  /** Which occurrence: its start (a task's dueAt; a bare reminder's remindAt); the delivery is once per (reminder, occurrenceStart). */
  readonly occurrenceStart: string;
  readonly title: string;
  /** The occurrence's start (instant, or date for all-day), the task's dueAt, or null. */
  readonly start: string | null;
  /** When the reminder fell due (ISO instant). */
  readonly dueAt: string;
}

/** A push created a conflict: the user's other devices are told (when `conflictAlerts` is on). */
export interface ConflictAlert {
  readonly kind: 'conflict';
  readonly userId: number;
  /** The device whose push made the conflict (it is not told); null for none. */
  readonly deviceUid: string | null;
  readonly conflictId: number;
  readonly entityType: string;
  readonly entityUid: string;
}

/** Something a person should notice, fanned out to every node like a change. */
export type UserAlert = ReminderAlert | ConflictAlert;

/** What a `ChangeFeed` subscriber is told. Handlers must not throw and must not block. */
export interface ChangeFeedListener {
  /** A unit of work that announced `change` committed (on any app node). */
  changed(change: DataChange): void;
  /** Sessions ended (on any app node). */
  sessionEnded(end: SessionEnd): void;
  /**
   * The feed may have missed notifications (its connection was lost and is back): every
   * subscriber should assume anything changed and re-read the newest versions.
   */
  resynced(): void;
  /** A reminder fell due or a conflict was made (on any app node); optional for subscribers that ignore alerts. */
  alerted?(alert: UserAlert): void;
}

/**
 * Fan-out of data changes, alerts and session ends to every app node. Changes and conflict alerts
 * enter through `SyncUnitOfWork.announceChange` and `announceAlerts` (inside the committing
 * transaction), reminder alerts through the reminder store's delivery, session ends through
 * `announceSessionEnd`. Guarantees of every implementation (checked by the store contract suite):
 * - a change announced in a unit of work reaches every subscriber once the unit commits, and never
 *   when it rolls back;
 * - changes of one user arrive in commit order;
 * - when delivery was interrupted, subscribers get `resynced()` once it is restored.
 */
export interface ChangeFeed {
  /** Starts delivering to `listener`; the returned function stops it. */
  subscribe(listener: ChangeFeedListener): () => void;
  /** Tells every node that sessions ended (call after the revocation committed). */
  announceSessionEnd(end: SessionEnd): Promise<void>;
}

/**
 * Told about every data change this node committed, after the commit (the FCM push uses it).
 * Must not throw and must not block: the push that caused the change has already succeeded.
 */
export interface ChangeNotifier {
  committed(change: DataChange): void;
}

/**
 * Told about an alert on the node that made it, after what caused it committed (the FCM push uses
 * it: one node sends each message). Must not throw and must not block.
 */
export interface AlertNotifier {
  alerted(alert: UserAlert): void;
}
