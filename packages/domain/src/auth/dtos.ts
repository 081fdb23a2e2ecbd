import type { DeviceRecord } from '../ports/device-store.js';
import type { NotificationSettings, UserRecord } from '../ports/user-store.js';

/** A user on the wire (docs/api.md); never the password hash. */
export interface UserDto {
  readonly id: number;
  readonly name: string;
  readonly email: string | null;
  readonly phone: string | null;
  readonly role: string;
  readonly isPhoneVerified: boolean;
  readonly notificationSettings: NotificationSettings;
}

/** A device on the wire (docs/api.md); never the fcmToken itself. */
export interface DeviceDto {
  readonly uid: string;
  /** null when the client never said (an empty value counts as not said). */
  readonly platform: string | null;
  /** null when the client never said (an empty value counts as not said). */
  readonly name: string | null;
  readonly hasPushToken: boolean;
  readonly createdAt: string;
  readonly lastSeenAt: string;
  /** True for the device of the calling token. */
  readonly current: boolean;
}

/** The answer of verify-otp and login. */
export interface SignInResult {
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly isNewUser: boolean;
  readonly user: UserDto;
  readonly device?: DeviceDto;
}

/** The answer of refresh. */
export interface TokenPair {
  readonly accessToken: string;
  readonly refreshToken: string;
}

/** Maps a stored user to its wire form. */
export function toUserDto(u: UserRecord): UserDto {
  return {
    id: u.id,
    name: u.name,
    email: u.email,
    phone: u.phone,
    role: u.role,
    isPhoneVerified: u.isPhoneVerified,
    notificationSettings: { ...u.notificationSettings },
  };
}

/** Maps a stored device to its wire form. */
export function toDeviceDto(d: DeviceRecord, currentUid: string | null): DeviceDto {
  return {
    uid: d.uid,
    platform: d.platform === '' ? null : d.platform,
    name: d.name === '' ? null : d.name,
    hasPushToken: d.fcmToken !== null && d.fcmToken !== '',
    createdAt: d.createdAt,
    lastSeenAt: d.lastSeenAt,
    current: currentUid !== null && d.uid === currentUid,
  };
}
