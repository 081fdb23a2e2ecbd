import type { RecordType } from '@calsync/domain/rules';
import type { Static, TObject } from '@sinclair/typebox';
import type * as auth from './auth-schemas.js';
import type * as interop from './interop-schemas.js';
import type * as occurrences from './occurrence-schemas.js';
import type { errorEnvelopeSchema } from './envelope-schemas.js';
import type * as records from './record-schemas.js';
import type * as sync from './sync-schemas.js';

/** The error envelope as a value. */
export type ErrorEnvelopeWire = Static<typeof errorEnvelopeSchema>;
/** The success envelope around `T` (`envelopeSchema`): what every JSON answer but /metrics and the document is. */
export interface SuccessEnvelopeWire<T> {
  readonly success: true;
  readonly data: T;
}
/** The answer of POST /api/auth/logout. */
export type LogoutResult = Static<typeof auth.logoutResult>;
/** The body of PATCH /api/auth/devices/{uid}. */
export type RenameDeviceBody = Static<typeof auth.renameDeviceBody>;
/** The answer of PATCH /api/auth/devices/{uid}. */
export type DeviceResult = Static<typeof auth.deviceResult>;
/** The answer of DELETE /api/auth/devices/{uid}. */
export type RevokeResult = Static<typeof auth.revokeResult>;
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
/** `data` of GET /api/auth/me and PATCH /api/users/me. */
export type MeResult = Static<typeof auth.meResult>;
/** `data` of GET /api/auth/devices. */
export type DeviceListResult = Static<typeof auth.deviceListResult>;

/** The fields of a record of type `T` (no stamps), every one present, null when unset: what a client holds. */
export type RecordFields<T extends RecordType> = Static<TObject<records.FieldProperties<T>>>;
/** One pushed item of each record type (all fields optional: a patch). */
export type PushItemWire<T extends RecordType> = Static<(typeof records.PUSH_ITEM_SCHEMAS)[T]>;
/** Body of POST /api/sync/push. */
export type PushBody = Static<typeof records.pushBodySchema>;
/** A pulled record of each type: live or tombstone, every field present. */
export type PulledRecordWire<T extends RecordType> = Static<(typeof records.PULLED_RECORD_SCHEMAS)[T]>;
/** A loser snapshot of each type. */
export type LoserSnapshotWire<T extends RecordType> = Static<(typeof records.LOSER_SNAPSHOT_SCHEMAS)[T]>;
/** One per-item push result. */
export type ItemResultWire = Static<typeof sync.itemResultSchema>;
/** `data` of POST /api/sync/push. */
export type PushResponseWire = Static<typeof sync.pushResponseSchema>;
/** `data` of GET /api/sync/changes. */
export type PullResponseWire = Static<typeof sync.pullResponseSchema>;
/** A conflict on the wire (discriminated by entityType). */
export type ConflictWire = Static<typeof sync.conflictSchema>;
/** `data` of GET /api/sync/conflicts. */
export type ConflictPageWire = Static<typeof sync.conflictPageSchema>;
/** Query of GET /api/sync/changes. */
export type PullQuery = Static<typeof sync.pullQuerySchema>;
/** Query of GET /api/sync/conflicts. */
export type ConflictListQuery = Static<typeof sync.conflictListQuerySchema>;
/** Body of POST /api/sync/conflicts/{id}/resolve. */
export type ResolveBody = Static<typeof sync.resolveBodySchema>;
/** `data` of POST /api/sync/conflicts/{id}/resolve. */
export type ResolveResponseWire = Static<typeof sync.resolveResponseSchema>;
/** Query of GET /api/occurrences. */
export type OccurrencesQuery = Static<typeof occurrences.occurrencesQuerySchema>;
/** One occurrence of an event in a window. */
export type OccurrenceWire = Static<typeof occurrences.occurrenceSchema>;
/** `data` of GET /api/occurrences. */
export type OccurrencePageWire = Static<typeof occurrences.occurrencePageSchema>;
/** Body of POST /api/auth/app-passwords. */
export type AppPasswordBody = Static<typeof interop.appPasswordBodySchema>;
/** `data` of POST /api/auth/app-passwords. */
export type AppPasswordResultWire = Static<typeof interop.appPasswordResultSchema>;
/** Body of POST /api/feeds. */
export type FeedBody = Static<typeof interop.feedBodySchema>;
/** `data` of POST /api/feeds. */
export type CreatedFeedWire = Static<typeof interop.createdFeedSchema>;
/** A subscription feed as GET /api/feeds lists it (never its URL). */
export type FeedWire = Static<typeof interop.feedSchema>;
/** `data` of GET /api/feeds. */
export type FeedListWire = Static<typeof interop.feedListSchema>;
