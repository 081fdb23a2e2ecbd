import { DomainError, type AuthApi } from '@calsync/domain';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/** Options of the auth plugin. */
export interface AuthPluginOptions {
  readonly auth: AuthApi;
}

/** The Bearer token of a request, or null when the header is absent or not `Bearer <token>`. */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer +([^\s]+) *$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * Decorates `request.auth` (null) and `app.authenticate`, the preHandler of protected routes. It
 * checks the Bearer token through the domain (`AuthApi.authenticateAccess`: signature, alg,
 * iss/aud, exp/nbf on the domain clock, typ, live session), which answers every bad token with a
 * DomainError (UNAUTHORIZED, TOKEN_EXPIRED, WRONG_TOKEN_TYPE): the token signer never throws.
 */
export const authPlugin = fp<AuthPluginOptions>(
  async (app: FastifyInstance, opts) => {
    app.decorateRequest('auth', null);
    app.decorate('authenticate', async (request: FastifyRequest) => {
      const token = bearerToken(request);
      if (!token) throw new DomainError('UNAUTHORIZED', 'missing Bearer access token');
      request.auth = await opts.auth.authenticateAccess(token);
    });
  },
  { name: 'calsync-auth', fastify: '5.x' },
);
