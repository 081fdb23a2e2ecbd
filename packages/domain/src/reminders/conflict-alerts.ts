import type { AlertNotifier, ChangeFeed } from '../ports/change-feed.js';
import type { NotificationSettings } from '../ports/user-store.js';
import type { ConflictDto, SyncApi } from '../sync/types.js';

/** Dependencies of `ConflictAlerts`. */
export interface ConflictAlertsDeps {
  /** Carries the alert to every node's streams. */
  readonly feed: Pick<ChangeFeed, 'announceAlert'>;
  readonly settings: (userId: number) => Promise<NotificationSettings | null>;
  /** The FCM push (this node sends it). */
  readonly pushes?: AlertNotifier;
  /** Told once per alert announced to the streams. */
  readonly announced?: () => void;
  /** A failure to read the settings or to announce (the push itself has succeeded). */
  readonly onError?: (error: unknown) => void;
}

/**
 * Conflict alerts (docs/protocol.md, "Conflict alerts"): when a push created conflicts, the user's
 * other devices are told of each, on their streams (`event: conflict`) and by FCM, unless the user
 * turned `conflictAlerts` off. Runs after the push committed and never throws into it.
 */
export class ConflictAlerts {
  constructor(private readonly deps: ConflictAlertsDeps) {}

  /** The push of `deviceUid` (null: no device) created `conflicts`. */
  created(userId: number, deviceUid: string | null, conflicts: readonly ConflictDto[]): void {
    if (conflicts.length === 0) return;
    void this.#send(userId, deviceUid, conflicts).catch((error: unknown) => this.deps.onError?.(error));
  }

  async #send(userId: number, deviceUid: string | null, conflicts: readonly ConflictDto[]): Promise<void> {
    const settings = await this.deps.settings(userId);
    if (settings?.conflictAlerts !== true) return;
    for (const c of conflicts) {
      const alert = { kind: 'conflict', userId, deviceUid, conflictId: c.conflictId, entityType: c.entityType, entityUid: c.entityUid } as const;
      await this.deps.feed.announceAlert(alert);
      this.deps.announced?.();
      this.deps.pushes?.alerted(alert);
    }
  }
}

/**
 * `sync` with every push's new conflicts handed to `alerts` once the push answered (its commit is
 * done). Every other member is `sync`'s own, bound to it, so the engine is used as it is.
 */
export function withConflictAlerts<T extends Pick<SyncApi, 'push'>>(sync: T, alerts: Pick<ConflictAlerts, 'created'>): T {
  return new Proxy(sync, {
    get(target, property) {
      if (property === 'push') {
        return async (...args: Parameters<SyncApi['push']>) => {
          const response = await target.push(...args);
          alerts.created(args[0], args[2] ?? null, response.conflicts);
          return response;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
