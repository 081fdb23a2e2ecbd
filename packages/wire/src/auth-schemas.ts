import {
  DEVICE_UID_PATTERN,
  EMAIL_MAX_LENGTH,
  EMAIL_PATTERN,
  NAME_MAX_LENGTH,
  OTP_LENGTH,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  PHONE_PATTERN,
} from '@calsync/domain/rules';
import { Type } from '@sinclair/typebox';
import { instantSchema } from './record-schemas.js';

// The value rules (patterns, lengths) are the domain's constants: the schema refuses early what
// the domain would refuse anyway, with the same limits.

/** An E.164 phone number: `+` and 8 to 15 digits. */
export const phoneSchema = Type.String({ pattern: PHONE_PATTERN.source, description: 'E.164 phone number' });
/** something@domain.tld. */
export const emailSchema = Type.String({ maxLength: EMAIL_MAX_LENGTH, pattern: EMAIL_PATTERN.source, description: 'e-mail address' });
const nameSchema = Type.String({ maxLength: NAME_MAX_LENGTH });

/** The device a client sends at verify-otp / login. */
export const deviceInputSchema = Type.Object(
  {
    uid: Type.String({ pattern: DEVICE_UID_PATTERN.source, description: 'client-chosen, stable per installation' }),
    platform: Type.Optional(Type.String({ maxLength: NAME_MAX_LENGTH, description: 'e.g. ios, android, web' })),
    name: Type.Optional(nameSchema),
    fcmToken: Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()], { description: 'push token; never listed back' })),
  },
  { additionalProperties: false, title: 'DeviceInput' },
);

/** POST /api/auth/send-otp body. */
export const sendOtpBody = Type.Object(
  { phone: phoneSchema, name: Type.Optional(Type.String({ maxLength: NAME_MAX_LENGTH, description: 'used if the code creates the user' })) },
  { additionalProperties: false, title: 'SendOtpRequest' },
);
/** POST /api/auth/verify-otp body. */
export const verifyOtpBody = Type.Object(
  {
    phone: phoneSchema,
    otp: Type.String({ pattern: `^[0-9]{${OTP_LENGTH}}$`, description: `the ${OTP_LENGTH}-digit code` }),
    device: Type.Optional(deviceInputSchema),
  },
  { additionalProperties: false, title: 'VerifyOtpRequest' },
);
/** POST /api/auth/login body. Length is checked by the domain (same answer as a wrong password). */
export const loginBody = Type.Object(
  { email: emailSchema, password: Type.String({ minLength: 1, maxLength: 4096 }), device: Type.Optional(deviceInputSchema) },
  { additionalProperties: false, title: 'LoginRequest' },
);
/** POST /api/auth/refresh body. */
export const refreshBody = Type.Object(
  {
    refreshToken: Type.String({ minLength: 1, maxLength: 8192 }),
    deviceUid: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'the device the token was issued to' })),
  },
  { additionalProperties: false, title: 'RefreshRequest' },
);
/** DELETE /api/auth/devices/{uid} params. */
export const deviceParams = Type.Object({ uid: Type.String({ minLength: 1, maxLength: 128 }) });

/** The notification switches of a user. */
export const notificationSettingsSchema = Type.Object({ syncNotifications: Type.Boolean(), eventReminders: Type.Boolean(), conflictAlerts: Type.Boolean() });

/** PATCH /api/users/me body. */
export const profileBody = Type.Object(
  {
    name: Type.Optional(nameSchema),
    email: Type.Optional(emailSchema),
    password: Type.Optional(Type.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH })),
    notificationSettings: Type.Optional(Type.Partial(notificationSettingsSchema, { additionalProperties: false, description: 'merged key by key' })),
  },
  { additionalProperties: false, title: 'ProfileUpdate' },
);

/** The user on the wire; never the password hash. */
export const userSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String({ description: 'empty when the user gave none' }),
    email: Type.Union([Type.String(), Type.Null()]),
    phone: Type.Union([Type.String(), Type.Null()]),
    role: Type.String(),
    isPhoneVerified: Type.Boolean(),
    notificationSettings: notificationSettingsSchema,
  },
  { title: 'User' },
);

/** A signed-in device on the wire; never the push token itself. */
export const deviceDtoSchema = Type.Object(
  {
    uid: Type.String(),
    platform: Type.Union([Type.String(), Type.Null()], { description: 'null when the client never said' }),
    name: Type.Union([Type.String(), Type.Null()], { description: 'null when the client never said' }),
    hasPushToken: Type.Boolean(),
    createdAt: instantSchema(),
    lastSeenAt: instantSchema(),
    current: Type.Boolean({ description: 'the device of the calling token' }),
  },
  { title: 'Device' },
);

/** Answer of verify-otp and login. */
export const signInResult = Type.Object(
  {
    accessToken: Type.String(),
    refreshToken: Type.String(),
    isNewUser: Type.Boolean(),
    user: userSchema,
    device: Type.Optional(deviceDtoSchema),
  },
  { title: 'SignInResult' },
);

/** Answer of refresh. */
export const tokenPair = Type.Object({ accessToken: Type.String(), refreshToken: Type.String() }, { title: 'TokenPair' });
/** `data` of POST /api/auth/send-otp. */
export const sendOtpResult = Type.Object({ expiresInSeconds: Type.Integer(), resendAfterSeconds: Type.Integer() }, { title: 'SendOtpResult' });
/** `data` of POST /api/auth/logout. */
export const logoutResult = Type.Object({ loggedOut: Type.Literal(true) });
/** `data` of GET /api/auth/me and PATCH /api/users/me. */
export const meResult = Type.Object({ user: userSchema });
/** `data` of GET /api/auth/devices. */
export const deviceListResult = Type.Object({ devices: Type.Array(deviceDtoSchema) });
/** `data` of DELETE /api/auth/devices/{uid}. */
export const revokeResult = Type.Object({ revoked: Type.Literal(true) });

export const renameDeviceBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: NAME_MAX_LENGTH }) }, { additionalProperties: false, title: 'DeviceRename' });

export const deviceResult = Type.Object({ device: deviceDtoSchema });
