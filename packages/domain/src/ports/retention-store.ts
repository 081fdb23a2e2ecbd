/**
 * What the maintenance job removes, each by its own rule (`before` is an ISO instant):
 * - `receipts`: idempotency receipts stored before `before` (a retry of such a push is decided like a new push);
 * - `tombstones`: deleted records whose `deleted` is before `before` and that no other row of the
 *   user references (a referenced one goes in a later run, after its children), and departures of
 *   events from calendars (`Departure`) made before `before`;
 * - `conflicts`: conflict records resolved before `before` (unresolved ones stay until the user decides);
 * - `sessions`: refresh families revoked before `before` or whose every refresh token expired
 *   before it, and refresh tokens that expired before it;
 * - `codes`: one-time codes that expired before `before` (a used code expires like any other);
 * - `codeSends`: entries of the per-phone send log made before `before`;
 * - `renders`: kept CalDAV renders (`RenderStore`) of objects that no longer live: no live event
 *   or task of the user has the render's root uid (deleted through the sync API, or its tombstone
 *   purged). Such a text is never read again; `before` plays no part.
 */
export const RETENTION_KINDS = ['receipts', 'tombstones', 'conflicts', 'sessions', 'codes', 'codeSends', 'renders'] as const;
export type RetentionKind = (typeof RETENTION_KINDS)[number];

/**
 * Removal of data past its retention (the maintenance job). Guarantees (checked by
 * `runRetentionStoreContract` in testkit, on PGlite and PostgreSQL):
 * - `purge` removes at most `limit` rows of its kind, only rows its rule names, and answers how many
 *   went; 0 means none is left to remove now;
 * - tombstones (and departures) are removed under the owning user's per-user lock (the one
 *   `SyncStore` units of work take), in transactions of at most `limit` rows of one user, and in
 *   the same transaction the user's purge horizon (`ChangesSince.purgedThrough`) rises to the
 *   highest version removed: a reader never sees a tombstone or departure gone without the horizon
 *   that says so;
 * - `exclusively` runs `work` only while no other caller anywhere (any node on the same database)
 *   runs work through it, and answers `{ ran: false }` without running it otherwise.
 */
export interface RetentionStore {
  purge(kind: RetentionKind, before: string, limit: number): Promise<number>;
  /**
   * Makes the space of rows removed by `purge` of these kinds reusable for new rows (PostgreSQL's
   * VACUUM: PGlite has no autovacuum, and on a server it would come later), so the files stop growing.
   */
  reclaim(kinds: readonly RetentionKind[]): Promise<void>;
  exclusively<T>(work: () => Promise<T>): Promise<{ readonly ran: true; readonly value: T } | { readonly ran: false }>;
}
