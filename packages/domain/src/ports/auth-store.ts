/** A device as stored (docs/api.md). The fcmToken never leaves the server. */
export interface DeviceRecord {
  readonly userId: number;
  readonly uid: string;
  readonly platform: string;
  readonly name: string;
  readonly fcmToken: string | null;
  readonly createdAt: string;
  readonly lastSeenAt: string;
  readonly revokedAt: string | null;
}

/** A device as the client sends it at verify-otp / login. */
export interface DeviceInput {
  readonly uid: string;
  readonly platform?: string;
  readonly name?: string;
  readonly fcmToken?: string | null;
}

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

/** The one live (or last) one-time code of a phone. Only its HMAC is stored. */
export interface OtpRecord {
  readonly phone: string;
  readonly codeHmac: string;
  /** The name given at send-otp, used if verification creates the user. */
  readonly name: string | null;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly attempts: number;
  readonly consumedAt: string | null;
}

/**
 * Storage of devices, refresh families and tokens, and one-time codes. Guarantees (checked by the
 * auth store contract suite in testkit, for every adapter):
 * - `startSession` ends (reason `superseded`) every live family of the same device, or in legacy
 *   mode every live legacy family of the user, and stores the first token, in one transaction;
 * - `rotateRefreshToken` marks the parent replaced only if it was not yet replaced and stores the
 *   child in the same transaction: of concurrent rotations of one token exactly one returns true;
 * - `consumeOtp` succeeds for exactly one of concurrent callers;
 * - `incrementOtpAttempts` is atomic (each call sees its own count).
 */
export interface AuthStore {
  /** Creates the device or updates platform, name and fcmToken of the existing one (un-revoking it). */
  upsertDevice(userId: number, input: DeviceInput, now: string): Promise<DeviceRecord>;
  /** The user's devices that are not revoked, oldest first. */
  listActiveDevices(userId: number): Promise<DeviceRecord[]>;
  /** Sets lastSeenAt of a device. */
  touchDevice(userId: number, uid: string, now: string): Promise<void>;
  /** Clears the device's fcmToken if it still is `token` (the push service said it is no longer valid). */
  clearFcmToken(userId: number, uid: string, token: string): Promise<void>;
  /** Revokes a live device and all its live families; false when there is no such live device. */
  revokeDevice(userId: number, uid: string, now: string): Promise<boolean>;

  startSession(session: Omit<SessionRecord, 'revokedAt'>, firstToken: NewRefreshToken): Promise<void>;
  findSession(id: string): Promise<SessionRecord | null>;
  /** Ends a family (no-op when already ended). */
  revokeSession(id: string, reason: SessionRevokeReason, now: string): Promise<void>;
  findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | null>;
  rotateRefreshToken(parentHash: string, child: NewRefreshToken, now: string): Promise<boolean>;

  findOtp(phone: string): Promise<OtpRecord | null>;
  /** Stores a new code for the phone, replacing any previous one. */
  saveOtp(otp: OtpRecord): Promise<void>;
  deleteOtp(phone: string): Promise<void>;
  /** Appends to the send log that the hourly cap counts. */
  recordOtpSend(phone: string, at: string): Promise<void>;
  /** Sends logged for the phone at or after `since`, oldest first (their times). */
  listOtpSendsSince(phone: string, since: string): Promise<string[]>;
  /** Adds one wrong try to the phone's code if it still has this HMAC; the new count, or null. */
  incrementOtpAttempts(phone: string, codeHmac: string): Promise<number | null>;
  /** Marks the code used if it has this HMAC, is unused, unexpired at `now` and has fewer than `maxAttempts` tries. */
  consumeOtp(phone: string, codeHmac: string, now: string, maxAttempts: number): Promise<boolean>;
}
