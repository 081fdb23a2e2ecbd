import type { FastifyReply, FastifyRequest } from 'fastify';

/** Who is calling: set on the request by `app.authenticate` after the access token checked out. */
export interface AuthContext {
  readonly userId: number;
  /** The refresh family (`sid` claim) the access token belongs to. */
  readonly sessionId: string;
  /** The device uid (`did` claim) in device mode, else null. */
  readonly deviceUid: string | null;
  /** Access-token expiry (`exp`, epoch seconds); a notification stream closes then. */
  readonly expiresAt?: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `app.authenticate`; null on public routes. */
    auth: AuthContext | null;
  }
  interface FastifyInstance {
    /**
     * preHandler for protected routes: verifies the Bearer access token (signature, HS256, iss/aud,
     * expiry, typ, live session) and sets `request.auth`, or throws a DomainError
     * (UNAUTHORIZED, TOKEN_EXPIRED, WRONG_TOKEN_TYPE). Decorated by the auth plugin.
     */
    authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  }
}

/** The caller of a protected route; throws if the route forgot its `authenticate` preHandler. */
export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new Error('route is missing the authenticate preHandler');
  return request.auth;
}
