import { DomainError, ErrorCode } from '../errors.js';
import type { DeviceRecord, DeviceStore } from '../ports/device-store.js';
import type { SessionRevokeReason, SessionStore } from '../ports/session-store.js';
import type { ChangeFeed } from '../ports/change-feed.js';
import type { Clock } from '../ports/clock.js';
import type { Random } from '../ports/random.js';
import type { TokenClaims, TokenSigner } from '../ports/token-signer.js';
import type { TokenPair } from './dtos.js';
import { LastSeen } from './last-seen.js';
import { SessionCheckCache } from './session-cache.js';
import { hashRefreshToken } from './token-hash.js';

/** Who is calling, as established from a live access token. */
export interface AccessIdentity {
  readonly userId: number;
  readonly sessionId: string;
  readonly deviceUid: string | null;
  /** When the access token expires (`exp`, epoch seconds): a notification stream closes then. */
  readonly expiresAt?: number;
}

/** Token lifetimes and the session-check cache time. */
export interface SessionPolicy {
  readonly accessTtlSeconds: number;
  readonly refreshTtlSeconds: number;
  /** How long a live-session check may be reused (a few seconds at most; 0 disables). */
  readonly sessionCacheSeconds: number;
  /**
   * Told when a replayed refresh token ended a family: a stolen token or a client that lost a
   * rotation. The caller still gets REFRESH_INVALID; this is for the operator's log and metrics.
   */
  readonly onReplay?: (replay: { readonly userId: number; readonly deviceUid: string | null }) => void;
}

function refreshInvalid(): DomainError {
  return new DomainError(ErrorCode.REFRESH_INVALID, 'refresh token is invalid; sign in again');
}

/**
 * Refresh families: starting one per sign-in (per device, or legacy), rotating its refresh token,
 * detecting replays (which end the family), and checking that an access token's family is live.
 */

export class SessionService {
  private readonly cache: SessionCheckCache;
  /** A device that makes a request with its access token is seen (`LastSeen`: at most once a minute per node). */
  private readonly lastSeen: LastSeen;

  constructor(
    private readonly sessions: SessionStore,
    private readonly devices: DeviceStore,
    private readonly tokens: TokenSigner,
    private readonly clock: Clock,
    private readonly random: Random,
    private readonly policy: SessionPolicy,
    /** Where ended sessions are announced, so open notification streams close on every node. */
    private readonly sessionEnds?: Pick<ChangeFeed, 'announceSessionEnd'>,
  ) {
    this.cache = new SessionCheckCache(clock, policy.sessionCacheSeconds * 1000);
    this.lastSeen = new LastSeen(devices);
  }

  /** Starts a new family for the user (ending the device's, or the legacy, previous one). */
  async start(userId: number, device: DeviceRecord | null): Promise<TokenPair> {
    const now = this.clock.now();
    const sid = this.random.uuid();
    const deviceUid = device?.uid ?? null;
    const pair = await this.issuePair(userId, sid, deviceUid, now);
    await this.sessions.startSession(
      { id: sid, userId, deviceUid, createdAt: now.toISOString() },
      { tokenHash: hashRefreshToken(pair.refreshToken), sessionId: sid, parentHash: null, createdAt: now.toISOString(), expiresAt: pair.refreshExpiresAt },
    );
    // Families of this device (or legacy) just ended as superseded; forget what we cached.
    this.cache.forgetAll();
    return { accessToken: pair.accessToken, refreshToken: pair.refreshToken };
  }

  /** Rotates a refresh token (docs/api.md, "Sessions and refresh"). */
  async refresh(token: string, deviceUid: string | undefined): Promise<TokenPair> {
    const now = this.clock.now();
    const verified = await this.tokens.verify('refresh', token, Math.floor(now.getTime() / 1000));
    if (!verified.ok) {
      if (verified.reason === 'wrong-type') throw new DomainError(ErrorCode.WRONG_TOKEN_TYPE, 'an access token cannot be used to refresh');
      throw refreshInvalid();
    }
    const claims = verified.claims;
    const tokenHash = hashRefreshToken(token);
    const row = await this.sessions.findRefreshToken(tokenHash);
    if (!row || row.sessionId !== claims.sid) throw refreshInvalid();
    const session = await this.sessions.findSession(row.sessionId);
    if (!session || session.revokedAt !== null || String(session.userId) !== claims.sub) throw refreshInvalid();
    if (deviceUid !== undefined && deviceUid !== session.deviceUid) throw refreshInvalid();
    if (Date.parse(row.expiresAt) <= now.getTime()) throw refreshInvalid();
    if (row.replacedAt !== null) {
      await this.endReplayed(session);
      throw refreshInvalid();
    }
    const pair = await this.issuePair(session.userId, session.id, session.deviceUid, now);
    const rotated = await this.sessions.rotateRefreshToken(
      tokenHash,
      { tokenHash: hashRefreshToken(pair.refreshToken), sessionId: session.id, parentHash: tokenHash, createdAt: now.toISOString(), expiresAt: pair.refreshExpiresAt },
      now.toISOString(),
    );
    if (!rotated) {
      // Another request rotated this token first: the same as a replay.
      await this.endReplayed(session);
      throw refreshInvalid();
    }
    if (session.deviceUid !== null) await this.devices.touchDevice(session.userId, session.deviceUid, now.toISOString());
    return { accessToken: pair.accessToken, refreshToken: pair.refreshToken };
  }

  /** Verifies an access token and that its family is live; throws UNAUTHORIZED, TOKEN_EXPIRED or WRONG_TOKEN_TYPE. */
  async authenticate(token: string): Promise<AccessIdentity> {
    const now = this.clock.now();
    const verified = await this.tokens.verify('access', token, Math.floor(now.getTime() / 1000));
    if (!verified.ok) {
      if (verified.reason === 'expired') throw new DomainError(ErrorCode.TOKEN_EXPIRED, 'access token expired');
      if (verified.reason === 'wrong-type') throw new DomainError(ErrorCode.WRONG_TOKEN_TYPE, 'a refresh token cannot be used as a Bearer token');
      throw new DomainError(ErrorCode.UNAUTHORIZED, 'invalid access token');
    }
    const { sub, sid } = verified.claims;
    const deviceUid = verified.claims.did ?? null;
    if (!/^[1-9][0-9]{0,9}$/.test(sub)) throw new DomainError(ErrorCode.UNAUTHORIZED, 'invalid access token');
    const userId = Number(sub);
    if (!this.cache.isLive(sid, userId, deviceUid)) {
      const session = await this.sessions.findSession(sid);
      if (!session || session.revokedAt !== null || session.userId !== userId || session.deviceUid !== deviceUid) {
        throw new DomainError(ErrorCode.UNAUTHORIZED, 'session ended; sign in again');
      }
      this.cache.remember(sid, userId, deviceUid);
    }
    if (deviceUid !== null) await this.lastSeen.seen(userId, deviceUid, now);
    return { userId, sessionId: sid, deviceUid, expiresAt: verified.claims.exp };
  }

  /** Ends a family whose refresh token was replayed, and tells `policy.onReplay`. */
  private async endReplayed(session: { readonly id: string; readonly userId: number; readonly deviceUid: string | null }): Promise<void> {
    await this.end(session, 'replay');
    this.policy.onReplay?.({ userId: session.userId, deviceUid: session.deviceUid });
  }

  /** Ends one family at once (its access tokens are refused from now on in this process). */
  async end(session: { readonly id: string; readonly userId: number }, reason: SessionRevokeReason): Promise<void> {
    await this.sessions.revokeSession(session.id, reason, this.clock.now().toISOString());
    this.cache.forget(session.id);
    await this.#announce({ userId: session.userId, sessionId: session.id });
  }

  /** Revokes a device and its families; false when the user has no such live device. */
  async revokeDevice(userId: number, uid: string): Promise<boolean> {
    const done = await this.devices.revokeDevice(userId, uid, this.clock.now().toISOString());
    this.cache.forgetAll();
    if (done) await this.#announce({ userId, deviceUid: uid });
    return done;
  }

  /** Best effort: the revocation already committed; a stream that misses this closes at its next session check. */
  async #announce(end: Parameters<ChangeFeed['announceSessionEnd']>[0]): Promise<void> {
    try {
      await this.sessionEnds?.announceSessionEnd(end);
    } catch {
      // Nothing to undo; see above.
    }
  }

  private async issuePair(userId: number, sid: string, deviceUid: string | null, now: Date) {
    const iat = Math.floor(now.getTime() / 1000);
    const base = { sub: String(userId), sid, iat, ...(deviceUid !== null ? { did: deviceUid } : {}) };
    const access: TokenClaims = { ...base, typ: 'access', jti: this.random.uuid(), exp: iat + this.policy.accessTtlSeconds };
    const refresh: TokenClaims = { ...base, typ: 'refresh', jti: this.random.uuid(), exp: iat + this.policy.refreshTtlSeconds };
    return {
      accessToken: await this.tokens.sign(access),
      refreshToken: await this.tokens.sign(refresh),
      refreshExpiresAt: new Date((iat + this.policy.refreshTtlSeconds) * 1000).toISOString(),
    };
  }
}
