import type { DeviceStore } from '../ports/device-store.js';

/** A device's lastSeenAt moves at most this often per node (each authenticated request would otherwise write). */
export const LAST_SEEN_INTERVAL_MS = 60_000;

/**
 * The one rule of a device's lastSeenAt between sign-ins: a device seen using its sign-in (a
 * request with its access token, a CalDAV request with its app password) has its lastSeenAt moved
 * to now, at most once per `LAST_SEEN_INTERVAL_MS` per device in this process, so a device that
 * makes many requests writes once a minute. Best effort: a failed write never fails the request.
 */
export class LastSeen {
  /** When this process last wrote each device's lastSeenAt (`userId:uid` → ms). */
  readonly #written = new Map<string, number>();

  constructor(private readonly devices: Pick<DeviceStore, 'touchDevice'>) {}

  async seen(userId: number, deviceUid: string, now: Date): Promise<void> {
    const key = `${userId}:${deviceUid}`;
    const last = this.#written.get(key);
    if (last !== undefined && now.getTime() - last < LAST_SEEN_INTERVAL_MS && now.getTime() >= last) return;
    if (this.#written.size >= 10_000) this.#written.clear();
    this.#written.set(key, now.getTime());
    try {
      await this.devices.touchDevice(userId, deviceUid, now.toISOString());
    } catch {
      // The next request after the interval tries again.
    }
  }
}
