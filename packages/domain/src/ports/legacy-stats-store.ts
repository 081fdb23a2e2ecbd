/** Counts for `GET /api/users/stats` (live records only). */
export interface UserSyncStats {
  readonly calendars: number;
  readonly events: number;
  readonly tasks: number;
  readonly reminders: number;
  readonly unresolvedConflicts: number;
  /** Devices not revoked. */
  readonly devices: number;
  readonly lastSyncTime: string | null;
  readonly syncStatus: { readonly SYNCED: number; readonly PENDING: number; readonly CONFLICT: number };
}

/**
 * The legacy per-event protocol's fields (`Event.syncStatus`, `User.lastSyncTime`). Only the stats
 * and reset-sync routes use this; the sync engine never reads or writes those fields.
 */
export interface LegacyStatsStore {
  stats(userId: number): Promise<UserSyncStats>;
  /** Sets every event's syncStatus to SYNCED and lastSyncTime to null; returns events changed. No new versions. */
  resetSync(userId: number): Promise<number>;
}
