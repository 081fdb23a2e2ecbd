import type { DeviceInput } from '../ports/device-store.js';
import type { NotificationSettings } from '../ports/user-store.js';
import type { DeviceDto, SignInResult, TokenPair, UserDto } from './dtos.js';
import type { SendOtpResult } from './otp-service.js';
import type { AccessIdentity } from './session-service.js';

/** Body of PATCH /api/users/me after schema validation. */
export interface ProfileUpdate {
  readonly name?: string;
  readonly email?: string;
  readonly password?: string;
  readonly notificationSettings?: Partial<NotificationSettings>;
}

/**
 * What the HTTP layer needs of sign-in: one method per `/api/auth` operation and PATCH
 * /api/users/me, plus the access-token check of every protected route. `AuthService` is the
 * implementation; HTTP tests of other routes pass a small stand-in.
 */
export interface AuthApi {
  /** `ip`: the requester's address, which SMS_MAX_PER_IP_PER_HOUR counts (none: not counted). */
  sendOtp(phone: string, name?: string, ip?: string): Promise<SendOtpResult>;
  verifyOtp(phone: string, code: string, device?: DeviceInput): Promise<SignInResult>;
  login(email: string, password: string, device?: DeviceInput): Promise<SignInResult>;
  refresh(refreshToken: string, deviceUid?: string): Promise<TokenPair>;
  /** Checks a Bearer access token; throws DomainError UNAUTHORIZED, TOKEN_EXPIRED or WRONG_TOKEN_TYPE. */
  authenticateAccess(token: string): Promise<AccessIdentity>;
  logout(caller: AccessIdentity): Promise<{ loggedOut: true }>;
  me(caller: AccessIdentity): Promise<{ user: UserDto }>;
  listDevices(caller: AccessIdentity): Promise<{ devices: DeviceDto[] }>;
  revokeDevice(caller: AccessIdentity, uid: string): Promise<{ revoked: true }>;
  renameDevice(caller: AccessIdentity, uid: string, name: string): Promise<{ device: DeviceDto }>;
  updateProfile(caller: AccessIdentity, update: ProfileUpdate): Promise<{ user: UserDto }>;
}
