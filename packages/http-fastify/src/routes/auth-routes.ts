import type { AuthService } from '@calsync/domain';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import {
  deviceListResult,
  deviceParams,
  envelopeSchema as ok,
  errorEnvelopeSchema as failure,
  loginBody,
  logoutResult,
  meResult,
  refreshBody,
  revokeResult,
  sendOtpBody,
  sendOtpResult,
  signInResult,
  tokenPair,
  verifyOtpBody,
} from '@calsync/wire';
import { requireAuth } from '../auth-context.js';
import { privateCacheOnSend } from '../plugins/private-cache.js';
import type { AppConfig } from '../config-types.js';

/** Options of the auth routes. */
export interface AuthRoutesOptions {
  readonly auth: AuthService;
  readonly config: AppConfig;
}

const tags = ['auth'];
const security = [{ bearerAuth: [] }];
const publicErrors = { 400: failure, 401: failure, 403: failure, 429: failure };
const protectedErrors = { 401: failure, 403: failure };

/**
 * The routes under /api/auth (API.md "Authentication"). Public ones are limited per IP; the OTP
 * limits per phone come from the domain as 429s with Retry-After.
 */
export async function authRoutes(parent: FastifyInstance, opts: AuthRoutesOptions): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { auth } = opts;

  app.post(
    '/api/auth/send-otp',
    {
      onRequest: app.authIpRateLimit,
      schema: {
        tags,
        summary: 'Send a 6-digit sign-in code by SMS',
        body: sendOtpBody,
        response: { 200: ok(sendOtpResult), ...publicErrors, 502: failure },
      },
    },
    async (request) => ({ success: true as const, data: await auth.sendOtp(request.body.phone, request.body.name) }),
  );

  app.post(
    '/api/auth/verify-otp',
    {
      onRequest: app.authIpRateLimit,
      schema: { tags, summary: 'Verify the code; a new phone creates the user and a default calendar', body: verifyOtpBody, response: { 200: ok(signInResult), ...publicErrors } },
    },
    async (request) => ({ success: true as const, data: await auth.verifyOtp(request.body.phone, request.body.otp, request.body.device) }),
  );

  app.post(
    '/api/auth/login',
    {
      onRequest: app.authIpRateLimit,
      schema: { tags, summary: 'Sign in with e-mail and password', body: loginBody, response: { 200: ok(signInResult), ...publicErrors } },
    },
    async (request) => ({ success: true as const, data: await auth.login(request.body.email, request.body.password, request.body.device) }),
  );

  app.post(
    '/api/auth/refresh',
    {
      onRequest: app.authIpRateLimit,
      schema: { tags, summary: 'Rotate the refresh token and get a new access token', body: refreshBody, response: { 200: ok(tokenPair), ...publicErrors } },
    },
    async (request) => ({ success: true as const, data: await auth.refresh(request.body.refreshToken, request.body.deviceUid) }),
  );

  app.post(
    '/api/auth/logout',
    {
      onRequest: app.authenticate,
      preHandler: app.userRateLimit,
      schema: { tags, security, summary: 'End the session of this device (or the legacy one)', response: { 200: ok(logoutResult), ...protectedErrors } },
    },
    async (request) => ({ success: true as const, data: await auth.logout(requireAuth(request)) }),
  );

  app.get(
    '/api/auth/me',
    {
      onRequest: app.authenticate,
      preHandler: app.userRateLimit,
      onSend: privateCacheOnSend,
      schema: { tags, security, summary: 'The current user', response: { 200: ok(meResult), ...protectedErrors } },
    },
    async (request) => ({ success: true as const, data: await auth.me(requireAuth(request)) }),
  );

  app.get(
    '/api/auth/devices',
    {
      onRequest: app.authenticate,
      preHandler: app.userRateLimit,
      onSend: privateCacheOnSend,
      schema: { tags, security, summary: 'Devices signed in (revoked ones are not listed)', response: { 200: ok(deviceListResult), ...protectedErrors } },
    },
    async (request) => ({ success: true as const, data: await auth.listDevices(requireAuth(request)) }),
  );

  app.delete(
    '/api/auth/devices/:uid',
    {
      onRequest: app.authenticate,
      preHandler: app.userRateLimit,
      schema: {
        tags,
        security,
        summary: 'Revoke a device: its session ends at once',
        params: deviceParams,
        response: { 200: ok(revokeResult), ...protectedErrors, 404: failure },
      },
    },
    async (request) => ({ success: true as const, data: await auth.revokeDevice(requireAuth(request), request.params.uid) }),
  );
}
