import { DomainError, ErrorCode } from '../errors.js';
import type { DeviceInput, DeviceStore } from '../ports/device-store.js';
import type { OtpStore } from '../ports/otp-store.js';
import type { SessionStore } from '../ports/session-store.js';
import type { ChangeFeed } from '../ports/change-feed.js';
import type { Clock } from '../ports/clock.js';
import type { PasswordHasher } from '../ports/password-hasher.js';
import type { Random } from '../ports/random.js';
import type { SmsSender } from '../ports/sms-sender.js';
import type { TokenSigner } from '../ports/token-signer.js';
import { createSignUpCalendar } from '../sync/sign-up-calendar.js';
import type { SyncApi } from '../sync/types.js';
import type { UserProfilePatch, UserRecord, UserStore } from '../ports/user-store.js';
import type { AuthApi, ProfileUpdate } from './auth-api.js';
import { toDeviceDto, toUserDto, type DeviceDto, type SignInResult, type TokenPair, type UserDto } from './dtos.js';
import { assertName, assertPassword, assertPhone, DEVICE_UID_PATTERN, normaliseEmail, PASSWORD_MAX_LENGTH } from '../rules/input-rules.js';
import { OtpService, type OtpPolicy, type SendOtpResult } from './otp-service.js';
import { SessionService, type AccessIdentity, type SessionPolicy } from './session-service.js';

/** Everything the sign-in service needs from the outside. */
export interface AuthServiceDeps {
  readonly users: UserStore;
  /** The sync engine: a new user's default calendar is made by a push through it. */
  readonly sync: Pick<SyncApi, 'push'>;
  readonly devices: DeviceStore;
  readonly sessions: SessionStore;
  readonly otps: OtpStore;
  readonly sms: SmsSender;
  readonly hasher: PasswordHasher;
  readonly tokens: TokenSigner;
  readonly clock: Clock;
  readonly random: Random;
  /** Announces ended sessions (logout, device revoke, replay) so notification streams close; optional. */
  readonly sessionEnds?: Pick<ChangeFeed, 'announceSessionEnd'>;
}

/** Limits and lifetimes of sign-in. */
export interface AuthPolicy extends SessionPolicy {
  readonly otp: OtpPolicy;
}

/**
 * Sign-in and account use cases behind the `/api/auth` and `/api/users/me` routes: SMS codes,
 * e-mail/password, device-aware refresh families, devices and the profile.
 */
export class AuthService implements AuthApi {
  private readonly otp: OtpService;
  private readonly sessions: SessionService;
  private dummyHash: Promise<string> | null = null;

  constructor(
    private readonly deps: AuthServiceDeps,
    policy: AuthPolicy,
  ) {
    this.otp = new OtpService(deps.otps, deps.sms, deps.clock, deps.random, policy.otp);
    this.sessions = new SessionService(deps.sessions, deps.devices, deps.tokens, deps.clock, deps.random, policy, deps.sessionEnds);
  }

  /** POST /api/auth/send-otp. */
  async sendOtp(phone: string, name?: string, ip?: string): Promise<SendOtpResult> {
    assertPhone(phone);
    if (name !== undefined) assertName(name);
    return this.otp.send(phone, name ?? null, ip ?? null);
  }

  /** POST /api/auth/verify-otp: a new phone creates the user and its default calendar. */
  async verifyOtp(phone: string, code: string, device?: DeviceInput): Promise<SignInResult> {
    assertPhone(phone);
    if (device) this.assertDevice(device);
    const otp = await this.otp.verify(phone, code);
    const now = this.deps.clock.now().toISOString();
    let user = await this.deps.users.findByPhone(phone);
    let isNewUser = false;
    if (!user) {
      const made = await this.deps.users.createPhoneUser({ phone, name: otp.name ?? '', now });
      user = made.user;
      isNewUser = made.created;
    } else if (!user.isPhoneVerified) {
      await this.deps.users.markPhoneVerified(user.id, now);
      user = { ...user, isPhoneVerified: true };
    }
    return this.signIn(await this.completeSignUp(user), isNewUser, device);
  }

  /**
   * Makes the default calendar of a user whose sign-up has not made it yet: the new user now, or
   * one whose sign-up stopped between the user and the calendar (a crash), at a later sign-in.
   * Also when a racing sign-up makes it at the same time: the default-merge rule keeps one.
   */
  private async completeSignUp(user: UserRecord): Promise<UserRecord> {
    if (!user.signUpPending) return user;
    await createSignUpCalendar(this.deps.sync, user.id, this.deps.random.uuid());
    await this.deps.users.completeSignUp(user.id);
    return { ...user, signUpPending: false };
  }

  /** POST /api/auth/login: the same answer for an unknown e-mail and a wrong password, in similar time. */
  async login(email: string, password: string, device?: DeviceInput): Promise<SignInResult> {
    if (device) this.assertDevice(device);
    const normalised = email.trim().toLowerCase();
    const user = await this.deps.users.findByEmail(normalised);
    const usable = password.length <= PASSWORD_MAX_LENGTH;
    let ok = false;
    if (user?.passwordHash && usable) {
      ok = await this.deps.hasher.verify(password, user.passwordHash);
    } else {
      // Spend the same work as a real check so timing does not tell which e-mails exist.
      await this.deps.hasher.verify(password, await this.getDummyHash());
    }
    if (!ok || !user) throw new DomainError(ErrorCode.INVALID_CREDENTIALS, 'e-mail or password is wrong');
    return this.signIn(await this.completeSignUp(user), false, device);
  }

  /** POST /api/auth/refresh. */
  refresh(refreshToken: string, deviceUid?: string): Promise<TokenPair> {
    return this.sessions.refresh(refreshToken, deviceUid);
  }

  /** Checks a Bearer access token: signature, expiry, type and a live family (`sid`). */
  authenticateAccess(token: string): Promise<AccessIdentity> {
    return this.sessions.authenticate(token);
  }

  /** POST /api/auth/logout: ends the caller's family (device or legacy). */
  async logout(caller: AccessIdentity): Promise<{ loggedOut: true }> {
    await this.sessions.end({ id: caller.sessionId, userId: caller.userId }, 'logout');
    return { loggedOut: true };
  }

  /** GET /api/auth/me. */
  async me(caller: AccessIdentity): Promise<{ user: UserDto }> {
    return { user: toUserDto(await this.requireUser(caller.userId)) };
  }

  /** GET /api/auth/devices: live devices, the caller's marked `current`. */
  async listDevices(caller: AccessIdentity): Promise<{ devices: DeviceDto[] }> {
    const devices = await this.deps.devices.listActiveDevices(caller.userId);
    return { devices: devices.map((d) => toDeviceDto(d, caller.deviceUid)) };
  }

  /** DELETE /api/auth/devices/:uid: NOT_FOUND unless it is a live device of the caller. */
  async revokeDevice(caller: AccessIdentity, uid: string): Promise<{ revoked: true }> {
    if (!(await this.sessions.revokeDevice(caller.userId, uid))) {
      throw new DomainError(ErrorCode.NOT_FOUND, 'no such device');
    }
    return { revoked: true };
  }

  /** PATCH /api/auth/devices/:uid: renames a live device of the caller; NOT_FOUND otherwise. */
  async renameDevice(caller: AccessIdentity, uid: string, name: string): Promise<{ device: DeviceDto }> {
    const device = await this.deps.devices.renameDevice(caller.userId, uid, name);
    if (device === null) throw new DomainError(ErrorCode.NOT_FOUND, 'no such device');
    return { device: toDeviceDto(device, caller.deviceUid) };
  }

  /** PATCH /api/users/me: name, e-mail, password (hashed), notification settings merged key by key. */
  async updateProfile(caller: AccessIdentity, update: ProfileUpdate): Promise<{ user: UserDto }> {
    const current = await this.requireUser(caller.userId);
    const patch: { -readonly [K in keyof UserProfilePatch]: UserProfilePatch[K] } = {};
    if (update.name !== undefined) {
      assertName(update.name);
      patch.name = update.name;
    }
    if (update.email !== undefined) patch.email = normaliseEmail(update.email);
    if (update.password !== undefined) {
      assertPassword(update.password);
      patch.passwordHash = await this.deps.hasher.hash(update.password);
    }
    if (update.notificationSettings !== undefined) {
      patch.notificationSettings = { ...current.notificationSettings, ...update.notificationSettings };
    }
    const user = await this.deps.users.updateProfile(caller.userId, patch, this.deps.clock.now().toISOString());
    if (!user) throw new DomainError(ErrorCode.UNAUTHORIZED, 'user no longer exists');
    return { user: toUserDto(user) };
  }

  private async signIn(user: UserRecord, isNewUser: boolean, deviceInput?: DeviceInput): Promise<SignInResult> {
    const now = this.deps.clock.now().toISOString();
    const device = deviceInput ? await this.deps.devices.upsertDevice(user.id, deviceInput, now) : null;
    const pair = await this.sessions.start(user.id, device);
    return { ...pair, isNewUser, user: toUserDto(user), ...(device ? { device: toDeviceDto(device, device.uid) } : {}) };
  }

  private async requireUser(id: number): Promise<UserRecord> {
    const user = await this.deps.users.findById(id);
    if (!user) throw new DomainError(ErrorCode.UNAUTHORIZED, 'user no longer exists');
    return user;
  }

  private assertDevice(device: DeviceInput): void {
    if (!DEVICE_UID_PATTERN.test(device.uid)) {
      throw new DomainError(ErrorCode.VALIDATION_ERROR, 'device.uid must be 1..128 characters of [A-Za-z0-9_.:-]', [{ path: '/device/uid', message: 'invalid device uid' }]);
    }
    if (device.name !== undefined) assertName(device.name, '/device/name');
    if (device.platform !== undefined) assertName(device.platform, '/device/platform');
  }

  private getDummyHash(): Promise<string> {
    this.dummyHash ??= this.deps.hasher.hash(Buffer.from(this.deps.random.bytes(16)).toString('hex'));
    return this.dummyHash;
  }
}
