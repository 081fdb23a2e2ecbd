/** The two kinds of JWT the service issues (claim `typ`). */
export type TokenType = 'access' | 'refresh';

/** Claims of every token the service issues (docs/api.md). Times in epoch seconds. */
export interface TokenClaims {
  /** User id, as a decimal string. */
  readonly sub: string;
  readonly typ: TokenType;
  /** The refresh family (session) id. */
  readonly sid: string;
  /** Device uid, in device mode only. */
  readonly did?: string;
  readonly jti: string;
  readonly iat: number;
  readonly exp: number;
}

/** Why a token failed verification; the domain picks the error code from it. */
export type TokenFailure = 'expired' | 'wrong-type' | 'invalid';

/** The outcome of verifying a token. */
export type TokenVerification =
  | { readonly ok: true; readonly claims: TokenClaims }
  | { readonly ok: false; readonly reason: TokenFailure };

/**
 * Signs and verifies JWTs. Access and refresh tokens use separate secrets; the algorithm is pinned
 * (HS256), issuer and audience are set and checked. `verify` never throws: a token signed for the
 * other type (or carrying the other `typ`) gives `wrong-type`, an `exp` at or before `nowSeconds`
 * gives `expired` (only once the signature checked out), anything else wrong gives `invalid`.
 */
export interface TokenSigner {
  sign(claims: TokenClaims): Promise<string>;
  verify(expected: TokenType, token: string, nowSeconds: number): Promise<TokenVerification>;
}
