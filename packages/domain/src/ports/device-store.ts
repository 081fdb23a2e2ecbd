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

/**
 * Storage of a user's devices. Guarantees (checked by `runDeviceStoreContract` in testkit, for
 * every adapter):
 * - one device per (user, uid): `upsertDevice` creates it or updates the given fields of the
 *   existing one, keeping its `createdAt` and un-revoking it;
 * - `revokeDevice` revokes a live device and ends every live refresh family of it (reason
 *   `device-revoked`, see `SessionStore`) in one transaction, so no family of a revoked device
 *   stays usable;
 * - `clearFcmToken` clears the token only while it is still the given one (a newer token wins);
 * - an app password (`setAppPassword`) is found by its hash only while its device is live:
 *   revoking the device ends it at once, for good.
 */
export interface DeviceStore {
  /** Creates the device or updates platform, name and fcmToken of the existing one (un-revoking it). */
  upsertDevice(userId: number, input: DeviceInput, now: string): Promise<DeviceRecord>;
  /** The user's devices that are not revoked, oldest first. */
  listActiveDevices(userId: number): Promise<DeviceRecord[]>;
  /** Renames a live device; null when the user has no such live device. */
  renameDevice(userId: number, uid: string, name: string): Promise<DeviceRecord | null>;
  /** Sets lastSeenAt of a device. */
  touchDevice(userId: number, uid: string, now: string): Promise<void>;
  /** Clears the device's fcmToken if it still is `token` (the push service said it is no longer valid). */
  clearFcmToken(userId: number, uid: string, token: string): Promise<void>;
  /** Revokes a live device and all its live families; false when there is no such live device. */
  revokeDevice(userId: number, uid: string, now: string): Promise<boolean>;
  /** Sets the SHA-256 (hex) of the device's app password, the CalDAV sign-in of that device. */
  setAppPassword(userId: number, uid: string, passwordHash: string): Promise<void>;
  /** The live device whose app password has this SHA-256 (hex), or null. */
  findByAppPassword(passwordHash: string): Promise<DeviceRecord | null>;
}
