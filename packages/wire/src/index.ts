// The wire schemas of the HTTP API, shared by the server (validation, OpenAPI) and the client SDK
// (types, optional validation). TypeBox and the domain only: no web framework here.
import type { Static } from '@sinclair/typebox';
import * as auth from './auth-schemas.js';
import { errorEnvelopeSchema } from './envelope-schemas.js';
import * as sync from './sync-schemas.js';

export * from './auth-schemas.js';
export * from './envelope-schemas.js';
export * from './record-schemas.js';
export * from './sync-schemas.js';

/** The error envelope as a value. */
export type ErrorEnvelopeWire = Static<typeof errorEnvelopeSchema>;
/** The device a client sends when it signs in. */
export type DeviceInput = Static<typeof auth.deviceInputSchema>;
/** Body of POST /api/auth/send-otp. */
export type SendOtpBody = Static<typeof auth.sendOtpBody>;
/** `data` of POST /api/auth/send-otp. */
export type SendOtpResult = Static<typeof auth.sendOtpResult>;
/** Body of POST /api/auth/verify-otp. */
export type VerifyOtpBody = Static<typeof auth.verifyOtpBody>;
/** Body of POST /api/auth/login. */
export type LoginBody = Static<typeof auth.loginBody>;
/** Body of POST /api/auth/refresh. */
export type RefreshBody = Static<typeof auth.refreshBody>;
/** Body of PATCH /api/users/me. */
export type ProfileBody = Static<typeof auth.profileBody>;
/** A user on the wire. */
export type UserWire = Static<typeof auth.userSchema>;
/** A device on the wire. */
export type DeviceWire = Static<typeof auth.deviceDtoSchema>;
/** `data` of verify-otp and login. */
export type SignInResultWire = Static<typeof auth.signInResult>;
/** `data` of refresh. */
export type TokenPairWire = Static<typeof auth.tokenPair>;
/** `data` of GET /api/auth/me. */
export type MeResult = Static<typeof auth.meResult>;
/** `data` of GET /api/auth/devices. */
export type DeviceListResult = Static<typeof auth.deviceListResult>;
/** A conflict on the wire. */
export type ConflictWire = Static<typeof sync.conflictSchema>;
/** `data` of GET /api/sync/conflicts. */
export type ConflictPageWire = Static<typeof sync.conflictPageSchema>;
/** Query of GET /api/sync/changes. */
export type PullQuery = Static<typeof sync.pullQuerySchema>;
/** Query of GET /api/sync/conflicts. */
export type ConflictListQuery = Static<typeof sync.conflictListQuerySchema>;
/** Body of POST /api/sync/conflicts/:id/resolve. */
export type ResolveBody = Static<typeof sync.resolveBodySchema>;
/** `data` of POST /api/sync/conflicts/:id/resolve. */
export type ResolveResponseWire = Static<typeof sync.resolveResponseSchema>;
