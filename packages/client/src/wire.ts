// The request and response shapes of the HTTP API. Every SDK type that crosses the wire comes from
// the server's own schemas (@calsync/wire, `Static<>` of the TypeBox schemas it validates with);
// never a hand-written copy.
export type {
  ConflictPageWire as WireConflictPage,
  ConflictWire as WireConflict,
  DeviceListResult as WireDeviceList,
  DeviceResult as WireDeviceResult,
  DeviceWire as WireDevice,
  ErrorEnvelopeWire as WireErrorEnvelope,
  FeedWire as WireFeed,
  LogoutResult as WireLogout,
  MeResult as WireMe,
  RevokeResult as WireRevoke,
  SuccessEnvelopeWire as WireSuccessEnvelope,
  ItemResultWire as WireItemResult,
  ProfileBody as WireProfileUpdate,
  PullResponseWire as WirePullResponse,
  PushBody as WirePushBody,
  PushResponseWire as WirePushResponse,
  ResolveResponseWire as WireResolveResponse,
  SendOtpResult as WireSendOtp,
  SignInResultWire as WireSignIn,
  TokenPairWire as WireTokenPair,
  UserWire as WireUser,
} from '@calsync/wire';
export type { WireRecord } from '@calsync/domain/rules';
