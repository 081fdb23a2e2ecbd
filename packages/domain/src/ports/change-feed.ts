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
}

/**
 * Fan-out of data changes and session ends to every app node. Changes enter through
 * `SyncUnitOfWork.announceChange` (inside the committing transaction), session ends through
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
