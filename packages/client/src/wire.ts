// The request and response shapes of the HTTP API, as the server declares them. Every SDK type
// that crosses the wire comes from here, so a change on the server shows up as a type error.
export type {
  ConflictDto as WireConflict,
  ConflictPage as WireConflictPage,
  ItemResult as WireItemResult,
  PullResponse as WirePullResponse,
  PushResponse as WirePushResponse,
  ResolveResponse as WireResolveResponse,
} from '@calsync/domain';
export type { WireRecord } from '@calsync/domain/records';
export type {
  DeviceDto as WireDevice,
  SignInResult as WireSignIn,
  TokenPair as WireTokenPair,
  UserDto as WireUser,
} from '@calsync/domain';

/** `data` of POST /api/auth/send-otp. */
export interface WireSendOtp {
  readonly expiresInSeconds: number;
  readonly resendAfterSeconds: number;
}
