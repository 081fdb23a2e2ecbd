import type { NewRefreshToken, RefreshTokenRecord, SessionRecord, SessionRevokeReason, SessionStore } from '@calsync/domain';

/** A family as the in-memory store keeps it: with why it ended, for tests to read. */
export type StoredSession = SessionRecord & { readonly reason: SessionRevokeReason | null };

/**
 * SessionStore in memory. Every method completes its check-and-write without awaiting in between,
 * so it is atomic under the event loop, as the contract requires.
 */
export class InMemorySessionStore implements SessionStore {
  readonly sessions = new Map<string, StoredSession>();
  readonly tokens = new Map<string, RefreshTokenRecord>();

  async startSession(session: Omit<SessionRecord, 'revokedAt'>, firstToken: NewRefreshToken): Promise<void> {
    for (const s of this.sessions.values()) {
      if (s.userId === session.userId && s.deviceUid === session.deviceUid && s.revokedAt === null) {
        this.endSession(s.id, 'superseded', session.createdAt);
      }
    }
    this.sessions.set(session.id, { ...session, revokedAt: null, reason: null });
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
    for (const s of this.sessions.values()) {
      if (s.userId === userId && s.deviceUid === deviceUid && s.revokedAt === null) this.endSession(s.id, 'device-revoked', now);
    }
  }

  private endSession(id: string, reason: SessionRevokeReason, now: string): void {
    const s = this.sessions.get(id);
    if (s && s.revokedAt === null) this.sessions.set(id, { ...s, revokedAt: now, reason });
  }
}
