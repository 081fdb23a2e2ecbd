import type { Clock } from '../ports/clock.js';

/** Who a kept key stands for: the user and their device (null for a sign-in without one). */
export interface CachedIdentity {
  readonly userId: number;
  readonly deviceUid: string | null;
}

/**
 * Remembers for a few seconds that a sign-in was checked (a session's refresh family was live, an
 * app password was right), so every request does not read the store. Revocations this process is
 * told of drop the entries at once; other nodes see them within `ttlMs` at most.
 */
export class SessionCheckCache {
  private readonly entries = new Map<string, CachedIdentity & { until: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The identity `key` was remembered with less than `ttlMs` ago, or undefined. */
  identityOf(key: string): CachedIdentity | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.until <= this.clock.now().getTime()) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }

  /** True when the session was seen live for this user and device less than `ttlMs` ago. */
  isLive(sid: string, userId: number, deviceUid: string | null): boolean {
    const e = this.identityOf(sid);
    return e !== undefined && e.userId === userId && e.deviceUid === deviceUid;
  }

  remember(key: string, userId: number, deviceUid: string | null): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { userId, deviceUid, until: this.clock.now().getTime() + this.ttlMs });
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  /** Drops every entry of this user's device. */
  forgetDevice(userId: number, deviceUid: string): void {
    for (const [key, e] of this.entries) if (e.userId === userId && e.deviceUid === deviceUid) this.entries.delete(key);
  }

  forgetAll(): void {
    this.entries.clear();
  }
}
