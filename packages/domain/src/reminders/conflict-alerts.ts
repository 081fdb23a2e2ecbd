import type { ConflictAlert } from '../ports/change-feed.js';
import type { NotificationSettings } from '../ports/user-store.js';
import type { ConflictDto } from '../sync/types.js';

/**
 * The conflict alerts of a push (docs/protocol.md, "Conflict alerts"): one per conflict it created,
 * naming the device whose push made it (that device is not told), and none unless the user's
 * `conflictAlerts` setting is on. `settings` is what the push's own unit of work read (null: none
 * known, so nothing is sent). The engine announces them in that unit, so they are delivered exactly
 * when the conflicts are committed.
 */
export function conflictAlertsOf(userId: number, deviceUid: string | null, conflicts: readonly ConflictDto[], settings: NotificationSettings | null): ConflictAlert[] {
  if (settings?.conflictAlerts !== true) return [];
  return conflicts.map((c) => ({ kind: 'conflict', userId, deviceUid, conflictId: c.conflictId, entityType: c.entityType, entityUid: c.entityUid }));
}
