/** A refresh family: the chain of rotated refresh tokens of one sign-in of one device (or legacy). */
export interface SessionRecord {
  readonly id: string;
  readonly userId: number;
  /** null in legacy mode (no device): the family stored "on the User". */
  readonly deviceUid: string | null;
  readonly createdAt: string;
  readonly revokedAt: string | null;
}

/** Why a family ended. */
export type SessionRevokeReason = 'logout' | 'replay' | 'device-revoked' | 'superseded';

/** A refresh token as stored: its SHA-256 hash only, never the token. */
export interface RefreshTokenRecord {
  readonly tokenHash: string;
  readonly sessionId: string;
  readonly parentHash: string | null;
  readonly createdAt: string;
  readonly expiresAt: string;
  /** Set when rotated; a replaced token presented again is a replay. */
  readonly replacedAt: string | null;
}

/** A refresh token about to be stored. */
export type NewRefreshToken = Omit<RefreshTokenRecord, 'replacedAt'>;

/**
 * Storage of refresh families and their tokens. Guarantees (checked by `runSessionStoreContract`
 * in testkit, for every adapter):
 * - `startSession` ends (reason `superseded`) every live family of the same device, or in legacy
 *   mode every live legacy family of the user, and stores the new family and its first token, in
 *   one transaction: a device has at most one live family;
 * - `rotateRefreshToken` marks the parent replaced only if it was not yet replaced and stores the
 *   child in the same transaction: of concurrent rotations of one token exactly one returns true;
 * - an ended family stays ended (`revokeSession` on an ended family changes nothing).
 */
export interface SessionStore {
  /** Starts a family of a known device (or legacy: `deviceUid` null), superseding the previous one. */
  startSession(session: Omit<SessionRecord, 'revokedAt'>, firstToken: NewRefreshToken): Promise<void>;
  findSession(id: string): Promise<SessionRecord | null>;
  /** Ends a family (no-op when already ended). */
  revokeSession(id: string, reason: SessionRevokeReason, now: string): Promise<void>;
  findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | null>;
  /** Replaces `parentHash` by `child`; false when the parent was already replaced (or is unknown). */
  rotateRefreshToken(parentHash: string, child: NewRefreshToken, now: string): Promise<boolean>;
}
