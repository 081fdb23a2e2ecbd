import type { Clock } from '../ports/clock.js';

/**
 * Remembers for a few seconds that a session (refresh family) was live, so every request does not
 * read it. Revocations made by this process drop the entry at once; other nodes see them within
 * `ttlMs` at most.
 */
export class SessionCheckCache {
  private readonly entries = new Map<string, { userId: number; deviceUid: string | null; until: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** True when the session was seen live for this user and device less than `ttlMs` ago. */
  isLive(sid: string, userId: number, deviceUid: string | null): boolean {
    const e = this.entries.get(sid);
    if (!e) return false;
    if (e.until <= this.clock.now().getTime()) {
      this.entries.delete(sid);
      return false;
    }
    return e.userId === userId && e.deviceUid === deviceUid;
  }

  remember(sid: string, userId: number, deviceUid: string | null): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(sid, { userId, deviceUid, until: this.clock.now().getTime() + this.ttlMs });
  }

  forget(sid: string): void {
    this.entries.delete(sid);
  }

  forgetAll(): void {
    this.entries.clear();
  }
}
