import type { NewRefreshToken, RefreshTokenRecord, SessionRecord, SessionRevokeReason, SessionStore } from '@calsync/domain';

/** A family as the in-memory store keeps it: with why it ended, for tests to read. */
export type StoredSession = SessionRecord & { readonly reason: SessionRevokeReason | null };

/** The key of a user's device among the live families (`deviceUid` null: the legacy single session). */
const deviceKey = (userId: number, deviceUid: string | null): string => JSON.stringify([userId, deviceUid]);

/**
 * SessionStore in memory. Every method completes its check-and-write without awaiting in between,
 * so it is atomic under the event loop, as the contract requires.
 *
 * The live families are also indexed by user and device, so a sign-in finds the family it
 * supersedes without a scan of every earlier one (which made long property runs quadratic).
 */
export class InMemorySessionStore implements SessionStore {
  readonly sessions = new Map<string, StoredSession>();
  readonly tokens = new Map<string, RefreshTokenRecord>();
  readonly #live = new Map<string, Set<string>>();

  async startSession(session: Omit<SessionRecord, 'revokedAt'>, firstToken: NewRefreshToken): Promise<void> {
    this.endLive(session.userId, session.deviceUid, 'superseded', session.createdAt);
    this.sessions.set(session.id, { ...session, revokedAt: null, reason: null });
    const key = deviceKey(session.userId, session.deviceUid);
    this.#live.set(key, (this.#live.get(key) ?? new Set()).add(session.id));
    this.tokens.set(firstToken.tokenHash, { ...firstToken, replacedAt: null });
  }

  async findSession(id: string): Promise<SessionRecord | null> {
    const s = this.sessions.get(id);
    return s ? { id: s.id, userId: s.userId, deviceUid: s.deviceUid, createdAt: s.createdAt, revokedAt: s.revokedAt } : null;
  }

  async revokeSession(id: string, reason: SessionRevokeReason, now: string): Promise<void> {
    this.endSession(id, reason, now);
  }

  async findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | null> {
    return this.tokens.get(tokenHash) ?? null;
  }

  async rotateRefreshToken(parentHash: string, child: NewRefreshToken, now: string): Promise<boolean> {
    const parent = this.tokens.get(parentHash);
    if (!parent || parent.replacedAt !== null) return false;
    this.tokens.set(parentHash, { ...parent, replacedAt: now });
    this.tokens.set(child.tokenHash, { ...child, replacedAt: null });
    return true;
  }

  /** Ends every live family of a device, synchronously (the device store's revoke calls it in the same turn). */
  endDeviceFamilies(userId: number, deviceUid: string, now: string): void {
    this.endLive(userId, deviceUid, 'device-revoked', now);
  }

  /** Ends every live family of the user's device. */
  private endLive(userId: number, deviceUid: string | null, reason: SessionRevokeReason, now: string): void {
    for (const id of [...(this.#live.get(deviceKey(userId, deviceUid)) ?? [])]) this.endSession(id, reason, now);
  }

  private endSession(id: string, reason: SessionRevokeReason, now: string): void {
    const s = this.sessions.get(id);
    if (!s || s.revokedAt !== null) return;
    this.sessions.set(id, { ...s, revokedAt: now, reason });
    const key = deviceKey(s.userId, s.deviceUid);
    const live = this.#live.get(key);
    live?.delete(id);
    if (live?.size === 0) this.#live.delete(key);
  }
}
