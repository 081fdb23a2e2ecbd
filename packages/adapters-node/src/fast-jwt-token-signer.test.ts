import { createSigner } from 'fast-jwt';
import { describe, expect, it } from 'vitest';
import type { TokenClaims } from '@calsync/domain';
import { FastJwtTokenSigner } from './fast-jwt-token-signer.js';

const settings = { accessSecret: 'a'.repeat(48), refreshSecret: 'r'.repeat(48), issuer: 'calsync', audience: 'calsync-clients' };
const NOW = 1_900_000_000;
const claims = (typ: 'access' | 'refresh', exp = NOW + 60): TokenClaims => ({ sub: '7', typ, sid: 's1', jti: 'j1', iat: NOW, exp, did: 'phone' });

describe('FastJwtTokenSigner', () => {
  const signer = new FastJwtTokenSigner(settings);

  it('verifies its own tokens of the expected type and returns their claims', async () => {
    const token = await signer.sign(claims('access'));
    expect(await signer.verify('access', token, NOW)).toEqual({ ok: true, claims: claims('access') });
  });

  it('tells a token of the other type from an invalid one, and checks expiry on the given clock', async () => {
    expect(await signer.verify('access', await signer.sign(claims('refresh')), NOW)).toEqual({ ok: false, reason: 'wrong-type' });
    expect(await signer.verify('refresh', await signer.sign(claims('access')), NOW)).toEqual({ ok: false, reason: 'wrong-type' });
    const short = await signer.sign(claims('access', NOW + 1));
    expect((await signer.verify('access', short, NOW)).ok).toBe(true);
    expect(await signer.verify('access', short, NOW + 1)).toEqual({ ok: false, reason: 'expired' });
  });

  it('never throws: tampered, foreign, unsigned and incomplete tokens are invalid', async () => {
    const token = await signer.sign(claims('access'));
    const [head, body] = token.split('.');
    const foreign = createSigner({ key: 'x'.repeat(48), algorithm: 'HS256', iss: settings.issuer, aud: settings.audience })({ ...claims('access') });
    const otherAudience = createSigner({ key: settings.accessSecret, algorithm: 'HS256', iss: settings.issuer, aud: 'someone-else' })({ ...claims('access') });
    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${body}.`;
    const { jti: _jti, ...noJti } = claims('access');
    const incomplete = createSigner({ key: settings.accessSecret, algorithm: 'HS256', iss: settings.issuer, aud: settings.audience })(noJti);
    for (const bad of [`${head}.${body}.AAAA`, foreign, otherAudience, unsigned, incomplete, 'not a token', '']) {
      expect(await signer.verify('access', bad, NOW)).toEqual({ ok: false, reason: 'invalid' });
    }
  });
});
