import type { TokenClaims, TokenSigner, TokenType, TokenVerification } from '@calsync/domain';
import { createSigner, createVerifier } from 'fast-jwt';

/** Secrets and claims of the service's JWTs (from AppConfig.jwt). */
export interface JwtSettings {
  readonly accessSecret: string;
  readonly refreshSecret: string;
  readonly issuer: string;
  readonly audience: string;
}

/** Claims every token must carry; a token missing one is invalid. */
export const REQUIRED_CLAIMS = ['sub', 'typ', 'sid', 'jti', 'iat', 'exp'];

type Verify = (token: string) => Record<string, unknown>;

/**
 * The TokenSigner port on fast-jwt. HS256 only, issuer and
 * audience set and checked, one secret per token type. Expiry and not-before are checked here
 * against the domain's clock (`nowSeconds`), not the wall clock, so tests can move time.
 */
export class FastJwtTokenSigner implements TokenSigner {
  private readonly signers: Record<TokenType, (payload: Record<string, unknown>) => string>;
  private readonly verifiers: Record<TokenType, Verify>;

  constructor(settings: JwtSettings) {
    const signer = (key: string) => createSigner({ key, algorithm: 'HS256', iss: settings.issuer, aud: settings.audience });
    const verifier = (key: string): Verify =>
      createVerifier({
        key,
        algorithms: ['HS256'],
        allowedIss: settings.issuer,
        allowedAud: settings.audience,
        requiredClaims: REQUIRED_CLAIMS,
        ignoreExpiration: true,
        ignoreNotBefore: true,
        // Every request of a device verifies the same access token: fast-jwt keeps the last 1,000
        // verified (keyed by a hash of the token, never the token itself), so a repeat costs a
        // hash instead of the HMAC, the base64 and the JSON of the claims. Expiry and not-before
        // are checked below on every call, against the domain's clock.
        cache: 1000,
      }) as Verify;
    this.signers = { access: signer(settings.accessSecret), refresh: signer(settings.refreshSecret) };
    this.verifiers = { access: verifier(settings.accessSecret), refresh: verifier(settings.refreshSecret) };
  }

  async sign(claims: TokenClaims): Promise<string> {
    return this.signers[claims.typ]({ ...claims });
  }

  async verify(expected: TokenType, token: string, nowSeconds: number): Promise<TokenVerification> {
    const own = this.tryVerify(expected, token);
    if (!own) {
      const other: TokenType = expected === 'access' ? 'refresh' : 'access';
      const foreign = this.tryVerify(other, token);
      return { ok: false, reason: foreign && foreign.typ === other ? 'wrong-type' : 'invalid' };
    }
    if (own.typ !== expected) return { ok: false, reason: own.typ === 'access' || own.typ === 'refresh' ? 'wrong-type' : 'invalid' };
    const claims = toClaims(own);
    if (!claims) return { ok: false, reason: 'invalid' };
    if (typeof own.nbf === 'number' && own.nbf > nowSeconds) return { ok: false, reason: 'invalid' };
    if (claims.exp <= nowSeconds) return { ok: false, reason: 'expired' };
    return { ok: true, claims };
  }

  private tryVerify(type: TokenType, token: string): Record<string, unknown> | null {
    try {
      return this.verifiers[type](token);
    } catch {
      // Every FAST_JWT_* failure (bad signature, alg, iss, aud, malformed, missing claim) lands here.
      return null;
    }
  }
}

function toClaims(p: Record<string, unknown>): TokenClaims | null {
  const { sub, typ, sid, did, jti, iat, exp } = p;
  if (typeof sub !== 'string' || typeof sid !== 'string' || typeof jti !== 'string') return null;
  if (typ !== 'access' && typ !== 'refresh') return null;
  if (typeof iat !== 'number' || typeof exp !== 'number' || !Number.isFinite(exp)) return null;
  if (did !== undefined && typeof did !== 'string') return null;
  return { sub, typ, sid, jti, iat, exp, ...(typeof did === 'string' ? { did } : {}) };
}
