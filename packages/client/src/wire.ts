// The request and response shapes of the HTTP API. Every SDK type that crosses the wire comes from
// the server's own schemas (@calsync/wire, `Static<>` of the TypeBox schemas it validates with) or,
// where those are still generic per record type (push and pull bodies), from the domain types the
// schemas are generated from; never a hand-written copy.
export type {
  ConflictPageWire as WireConflictPage,
  ConflictWire as WireConflict,
  DeviceWire as WireDevice,
  ProfileBody as WireProfileUpdate,
  ResolveResponseWire as WireResolveResponse,
  SendOtpResult as WireSendOtp,
  SignInResultWire as WireSignIn,
  TokenPairWire as WireTokenPair,
  UserWire as WireUser,
} from '@calsync/wire';
export type { ItemResult as WireItemResult, PullResponse as WirePullResponse } from '@calsync/domain';
export type { WireRecord } from '@calsync/domain/records';
import type { PushResponse } from '@calsync/domain';
import type { ConflictWire } from '@calsync/wire';

/** `data` of POST /api/sync/push: per-type item results, and the conflicts as the wire schema types them. */
export type WirePushResponse = Omit<PushResponse, 'conflicts'> & { readonly conflicts: ConflictWire[] };
