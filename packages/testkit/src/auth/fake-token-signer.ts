import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TokenClaims, TokenSigner, TokenType, TokenVerification } from '@calsync/domain';

/**
 * A TokenSigner for domain tests: `typ.base64url(claims).hmac` with one key per type. Follows the
 * port's rules (wrong-type, expired, invalid) without a JWT library; the real adapter is tested
 * in http-fastify.
 */
export class FakeTokenSigner implements TokenSigner {
  constructor(private readonly keys: Record<TokenType, string> = { access: 'test-access-key', refresh: 'test-refresh-key' }) {}

  async sign(claims: TokenClaims): Promise<string> {
    const body = `${claims.typ}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return `${body}.${this.mac(claims.typ, body)}`;
  }

  async verify(expected: TokenType, token: string, nowSeconds: number): Promise<TokenVerification> {
    const [typ, payload, mac] = token.split('.');
    if (typ !== 'access' && typ !== 'refresh') return { ok: false, reason: 'invalid' };
    const body = `${typ}.${payload}`;
    const good = Buffer.from(this.mac(typ, body));
    const given = Buffer.from(mac ?? '');
    if (good.length !== given.length || !timingSafeEqual(good, given)) return { ok: false, reason: 'invalid' };
    if (typ !== expected) return { ok: false, reason: 'wrong-type' };
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8')) as TokenClaims;
    if (claims.exp <= nowSeconds) return { ok: false, reason: 'expired' };
    return { ok: true, claims };
  }

  private mac(typ: TokenType, body: string): string {
    return createHmac('sha256', this.keys[typ]).update(body).digest('base64url');
  }
}
