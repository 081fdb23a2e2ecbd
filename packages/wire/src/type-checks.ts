import type {
  ConflictDto,
  ConflictPage,
  DeviceDto,
  DeviceInput,
  EntityType,
  ItemResult,
  Occurrence,
  OccurrencePage,
  ProfileUpdate,
  PullResponse,
  PushResponse,
  ResolveResponse,
  SendOtpResult,
  SignInResult,
  TokenPair,
  UserDto,
  WireRecord,
} from '@calsync/domain';
import type * as wire from './wire-types.js';

// Compile-time checks that each schema's static type matches the domain type the services return:
// a field added to one and not the other fails `tsc`. DTOs must be equal (both directions); the
// domain's record types are looser (any field name), so for records and what holds them the
// schema's exact type must fit the domain's.

/** A and B accept the same values (readonly aside). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Every value of A is a B. */
type Fits<A, B> = [A] extends [B] ? true : false;
type Assert<T extends true> = T;

export type _WireMatchesDomain = [
  Assert<Same<wire.UserWire, UserDto>>,
  Assert<Same<wire.DeviceWire, DeviceDto>>,
  Assert<Same<wire.SignInResultWire, SignInResult>>,
  Assert<Same<wire.TokenPairWire, TokenPair>>,
  Assert<Same<wire.SendOtpResult, SendOtpResult>>,
  Assert<Same<wire.DeviceInput, DeviceInput>>,
  Assert<Same<wire.ProfileBody, ProfileUpdate>>,
  Assert<Same<wire.ItemResultWire, ItemResult>>,
  Assert<Same<wire.OccurrenceWire, Occurrence>>,
  Assert<Same<wire.OccurrencePageWire, OccurrencePage>>,
  Assert<Fits<wire.PulledRecordWire<'events'>, WireRecord>>,
  Assert<Fits<wire.LoserSnapshotWire<'reminders'>, WireRecord>>,
  Assert<Fits<wire.ConflictWire, ConflictDto>>,
  // The conflict union has one member per record type (a new type missing from it fails here).
  Assert<Same<wire.ConflictWire['entityType'], EntityType>>,
  Assert<Fits<wire.PushResponseWire, PushResponse>>,
  Assert<Fits<wire.PullResponseWire, PullResponse>>,
  Assert<Fits<wire.ConflictPageWire, ConflictPage>>,
  Assert<Fits<wire.ResolveResponseWire, ResolveResponse>>,
];
