import type { ChangeFeed, SessionEnd } from '../ports/change-feed.js';
import type { Clock } from '../ports/clock.js';
import { LastSeen } from './last-seen.js';
import { SessionCheckCache } from './session-cache.js';
import type { DeviceStore } from '../ports/device-store.js';
import type { Random } from '../ports/random.js';
import type { UserStore } from '../ports/user-store.js';
import { toDeviceDto, type DeviceDto } from './dtos.js';
import { assertName, normaliseEmail } from '../rules/input-rules.js';
import type { AccessIdentity } from './session-service.js';
import { hashRefreshToken } from './token-hash.js';

/** What an app password signs in as: the user and its app-password device. */
export interface AppPasswordIdentity {
  readonly userId: number;
  readonly deviceUid: string;
}

/** Dependencies of `AppPasswordService`. */
export interface AppPasswordDeps {
  readonly users: UserStore;
  readonly devices: DeviceStore;
  readonly random: Random;
  readonly clock: Clock;
  /**
   * How long a verified sign-in may be reused in this process without reading the store (0, the
   * default: every request reads it). A revoke must reach `sessionEnded` for the entry to go at
   * once (see `appPasswordRevocations`); the time bounds a revoke this process was not told of.
   */
  readonly cacheMs?: number;
}

/** Random bytes of an app password: 144 bits. */
const PASSWORD_BYTES = 18;

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/**
 * App passwords, the sign-in of calendar apps that speak CalDAV (HTTP Basic: the account's phone
 * number or e-mail address, and the password). Each is a device of platform `caldav`: it is
 * listed with the others and ended by the same revoke. Only a SHA-256 of the password is stored;
 * being 144 random bits, it needs no slow hash, so every request of a calendar app can present it.
 */
export class AppPasswordService {
  /** Verified sign-ins by the hash of user name and password. */
  readonly #verified: SessionCheckCache;
  /** A calendar app that signs in is seen, as a device with an access token is (`LastSeen`: at most once a minute per node). */
  readonly #lastSeen: LastSeen;

  constructor(private readonly deps: AppPasswordDeps) {
    this.#verified = new SessionCheckCache(deps.clock, deps.cacheMs ?? 0);
    this.#lastSeen = new LastSeen(deps.devices);
  }

  /** POST /api/auth/app-passwords: a new device and its password, shown this once. */
  async create(caller: Pick<AccessIdentity, 'userId' | 'deviceUid'>, name: string): Promise<{ password: string; device: DeviceDto }> {
    assertName(name);
    const uid = `caldav-${this.deps.random.uuid()}`;
    const password = base64url(this.deps.random.bytes(PASSWORD_BYTES));
    const device = await this.deps.devices.upsertDevice(caller.userId, { uid, platform: 'caldav', name }, this.deps.clock.now().toISOString());
    await this.deps.devices.setAppPassword(caller.userId, uid, hashRefreshToken(password));
    return { password, device: toDeviceDto(device, caller.deviceUid) };
  }

  /**
   * The identity of a Basic sign-in, or null: the password must be a live app password of the user
   * whose phone number (exactly) or e-mail address (any case) is `username`. A sign-in that passes
   * moves the device's lastSeenAt (`LastSeen`), so the device list shows when the app last synced.
   */
  async authenticate(username: string, password: string): Promise<AppPasswordIdentity | null> {
    const identity = await this.#verify(username, password);
    if (identity !== null) await this.#lastSeen.seen(identity.userId, identity.deviceUid, this.deps.clock.now());
    return identity;
  }

  async #verify(username: string, password: string): Promise<AppPasswordIdentity | null> {
    if (password.length === 0 || password.length > 200) return null;
    const caching = (this.deps.cacheMs ?? 0) > 0;
    const key = caching ? hashRefreshToken(`${username}\u0000${password}`) : '';
    const hit = caching ? this.#verified.identityOf(key) : undefined;
    if (hit !== undefined && hit.deviceUid !== null) return { userId: hit.userId, deviceUid: hit.deviceUid };
    const device = await this.deps.devices.findByAppPassword(hashRefreshToken(password));
    if (device === null) return null;
    const user = await this.deps.users.findById(device.userId);
    if (user === null) return null;
    const name = username.trim();
    const matches = user.phone === name || (user.email !== null && name.includes('@') && user.email === normaliseEmail(name));
    if (!matches) return null;
    if (caching) this.#verified.remember(key, user.id, device.uid);
    return { userId: user.id, deviceUid: device.uid };
  }

  /** Sessions ended (a device revoked, on any node): its verified sign-ins are not reused. */
  sessionEnded(end: SessionEnd): void {
    if ('deviceUid' in end) this.#verified.forgetDevice(end.userId, end.deviceUid);
  }

  /** Reuses no verified sign-in (the change feed may have missed a revoke). */
  forgetAll(): void {
    this.#verified.forgetAll();
  }
}

/**
 * Revokes reach the app-password cache: on this node before the revoke is announced (so the next
 * request is refused), on the others through the change feed, and after a feed outage every entry
 * goes. Pass the answer as the sign-in service's `sessionEnds`; `stop` ends the subscription.
 */
export function appPasswordRevocations(
  appPasswords: Pick<AppPasswordService, 'sessionEnded' | 'forgetAll'>,
  feed: Pick<ChangeFeed, 'subscribe' | 'announceSessionEnd'>,
): Pick<ChangeFeed, 'announceSessionEnd'> & { stop(): void } {
  const stop = feed.subscribe({ changed: () => {}, sessionEnded: (end) => appPasswords.sessionEnded(end), resynced: () => appPasswords.forgetAll() });
  return {
    announceSessionEnd: async (end) => {
      appPasswords.sessionEnded(end);
      await feed.announceSessionEnd(end);
    },
    stop,
  };
}
