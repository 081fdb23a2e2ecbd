import fastifyJwt from '@fastify/jwt';
import { DomainError, type AuthService } from '@calsync/domain';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AppConfig } from '../config-types.js';

/** Options of the auth plugin. */
export interface AuthPluginOptions {
  readonly auth: AuthService;
  readonly config: AppConfig;
}

/** The Bearer token of a request, or null when the header is absent or not `Bearer <token>`. */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer +([^\s]+) *$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * Registers @fastify/jwt twice (namespaces `access` and `refresh`, HS256 pinned, iss/aud set and
 * checked) for code that needs `app.jwt.access` / `app.jwt.refresh`, decorates `request.auth`
 * (null) and `app.authenticate`. `authenticate` checks the Bearer token through the domain
 * (`AuthService.authenticateAccess`: signature, alg, iss/aud, exp/nbf on the domain clock, typ,
 * live session) and throws DomainError UNAUTHORIZED / TOKEN_EXPIRED / WRONG_TOKEN_TYPE; no
 * JWT failure can become a 500.
 */
export const authPlugin = fp<AuthPluginOptions>(
  async (app: FastifyInstance, opts) => {
    const { jwt } = opts.config;
    for (const [namespace, secret] of [
      ['access', jwt.accessSecret],
      ['refresh', jwt.refreshSecret],
    ] as const) {
      await app.register(fastifyJwt, {
        secret,
        namespace,
        jwtVerify: `${namespace}JwtVerify`,
        jwtDecode: `${namespace}JwtDecode`,
        jwtSign: `${namespace}JwtSign`,
        sign: { algorithm: 'HS256', iss: jwt.issuer, aud: jwt.audience },
        verify: { algorithms: ['HS256'], allowedIss: jwt.issuer, allowedAud: jwt.audience },
      });
    }
    if (!app.hasRequestDecorator('auth')) app.decorateRequest('auth', null);
    app.decorate('authenticate', async (request: FastifyRequest) => {
      const token = bearerToken(request);
      if (!token) throw new DomainError('UNAUTHORIZED', 'missing Bearer access token');
      try {
        request.auth = await opts.auth.authenticateAccess(token);
      } catch (e) {
        if (e instanceof DomainError) throw e;
        // A library failure (FAST_JWT_*, FST_JWT_*) is a bad token, never a server error.
        const code = (e as { code?: unknown } | null)?.code;
        if (typeof code === 'string' && /^(FAST|FST)_JWT_/.test(code)) throw new DomainError('UNAUTHORIZED', 'invalid access token');
        throw e;
      }
    });
  },
  { name: 'calsync-auth', fastify: '5.x' },
);
