import { Type } from '@sinclair/typebox';

/** E.164 phone (API.md): `+` and 8 to 15 digits. */
export const phoneSchema = Type.String({ pattern: '^\\+[0-9]{8,15}$', description: 'E.164 phone number' });
/** something@domain.tld. */
export const emailSchema = Type.String({ maxLength: 254, pattern: '^[^\\s@]+@[^\\s@.]+(\\.[^\\s@.]+)+$' });
const nameSchema = Type.String({ maxLength: 200 });

/** The device a client sends at verify-otp / login. */
export const deviceInputSchema = Type.Object({
  uid: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.:-]+$' }),
  platform: Type.Optional(Type.String({ maxLength: 200 })),
  name: Type.Optional(nameSchema),
  fcmToken: Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()])),
});

/** POST /api/auth/send-otp body. */
export const sendOtpBody = Type.Object({ phone: phoneSchema, name: Type.Optional(nameSchema) });
/** POST /api/auth/verify-otp body. */
export const verifyOtpBody = Type.Object({
  phone: phoneSchema,
  otp: Type.String({ pattern: '^[0-9]{6}$', description: 'the 6-digit code' }),
  device: Type.Optional(deviceInputSchema),
});
/** POST /api/auth/login body. Length is checked by the domain (same answer as a wrong password). */
export const loginBody = Type.Object({
  email: emailSchema,
  password: Type.String({ minLength: 1, maxLength: 4096 }),
  device: Type.Optional(deviceInputSchema),
});
/** POST /api/auth/refresh body. */
export const refreshBody = Type.Object({
  refreshToken: Type.String({ minLength: 1, maxLength: 8192 }),
  deviceUid: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
});
/** DELETE /api/auth/devices/:uid params. */
export const deviceParams = Type.Object({ uid: Type.String({ minLength: 1, maxLength: 128 }) });
/** PATCH /api/users/me body. */
export const profileBody = Type.Object(
  {
    name: Type.Optional(nameSchema),
    email: Type.Optional(emailSchema),
    password: Type.Optional(Type.String({ minLength: 8, maxLength: 128 })),
    notificationSettings: Type.Optional(
      Type.Object(
        {
          syncNotifications: Type.Optional(Type.Boolean()),
          eventReminders: Type.Optional(Type.Boolean()),
          conflictAlerts: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** The User on the wire (spec "User"). */
export const userSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  phone: Type.Union([Type.String(), Type.Null()]),
  role: Type.String(),
  isPhoneVerified: Type.Boolean(),
  notificationSettings: Type.Object({
    syncNotifications: Type.Boolean(),
    eventReminders: Type.Boolean(),
    conflictAlerts: Type.Boolean(),
  }),
});

/** DeviceDto (API.md); never the fcmToken. */
export const deviceDtoSchema = Type.Object({
  uid: Type.String(),
  platform: Type.String(),
  name: Type.String(),
  hasPushToken: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  lastSeenAt: Type.String({ format: 'date-time' }),
  current: Type.Boolean(),
});

/** Answer of verify-otp and login. */
export const signInResult = Type.Object({
  accessToken: Type.String(),
  refreshToken: Type.String(),
  isNewUser: Type.Boolean(),
  user: userSchema,
  device: Type.Optional(deviceDtoSchema),
});

/** Answer of refresh. */
export const tokenPair = Type.Object({ accessToken: Type.String(), refreshToken: Type.String() });

/** `data` of POST /api/auth/send-otp. */
export const sendOtpResult = Type.Object({ expiresInSeconds: Type.Integer(), resendAfterSeconds: Type.Integer() });
/** `data` of POST /api/auth/logout. */
export const logoutResult = Type.Object({ loggedOut: Type.Literal(true) });
/** `data` of GET /api/auth/me. */
export const meResult = Type.Object({ user: userSchema });
/** `data` of GET /api/auth/devices. */
export const deviceListResult = Type.Object({ devices: Type.Array(deviceDtoSchema) });
/** `data` of DELETE /api/auth/devices/:uid. */
export const revokeResult = Type.Object({ revoked: Type.Literal(true) });
