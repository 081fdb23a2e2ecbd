import { callingCodeOf, type AuthApi } from '@calsync/domain';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import {
  deviceListResult,
  deviceParams,
  envelopeSchema as ok,
  loginBody,
  logoutResult,
  meResult,
  refreshBody,
  renameDeviceBody,
  deviceResult,
  revokeResult,
  sendOtpBody,
  sendOtpResult,
  signInResult,
  tokenPair,
  verifyOtpBody,
} from '@calsync/wire';
import { requireAuth } from '../auth-context.js';
import { privateCacheOnSend } from '../plugins/private-cache.js';
import { operation } from './operation.js';

/** Options of the auth routes. */
export interface AuthRoutesOptions {
  readonly auth: AuthApi;
}

/**
 * The routes under /api/auth (docs/api.md). Public ones are limited per IP; the OTP
 * limits per phone come from the domain as 429s with Retry-After.
 */
export async function authRoutes(parent: FastifyInstance, opts: AuthRoutesOptions): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { auth } = opts;

  app.post(
    '/api/auth/send-otp',
    {
      onRequest: app.authIpRateLimit,
      schema: { ...operation('sendOtp'), body: sendOtpBody, response: { 200: ok(sendOtpResult) } },
    },
    async (request) => {
      const sent = await auth.sendOtp(request.body.phone, request.body.name, request.ip);
      app.smsMetrics.sent(callingCodeOf(request.body.phone) ?? 'unknown');
      return { success: true as const, data: sent };
    },
  );

  app.post(
    '/api/auth/verify-otp',
    {
      onRequest: app.authIpRateLimit,
      schema: { ...operation('verifyOtp'), body: verifyOtpBody, response: { 200: ok(signInResult) } },
    },
    async (request) => ({ success: true as const, data: await auth.verifyOtp(request.body.phone, request.body.otp, request.body.device) }),
  );

  app.post(
    '/api/auth/login',
    {
      onRequest: app.authIpRateLimit,
      schema: { ...operation('login'), body: loginBody, response: { 200: ok(signInResult) } },
    },
    async (request) => ({ success: true as const, data: await auth.login(request.body.email, request.body.password, request.body.device) }),
  );

  app.post(
    '/api/auth/refresh',
    {
      onRequest: app.authIpRateLimit,
      schema: { ...operation('refreshTokens'), body: refreshBody, response: { 200: ok(tokenPair) } },
    },
    async (request) => ({ success: true as const, data: await auth.refresh(request.body.refreshToken, request.body.deviceUid) }),
  );

  app.post(
    '/api/auth/logout',
    {
      onRequest: app.authenticate,
      preHandler: app.userRateLimit,
      schema: { ...operation('logout'), response: { 200: ok(logoutResult) } },
    },
    async (request) => ({ success: true as const, data: await auth.logout(requireAuth(request)) }),
  );

  app.get(
    '/api/auth/me',
    {
      onRequest: app.authenticate,
      preHandler: app.userRateLimit,
      onSend: privateCacheOnSend,
      schema: { ...operation('getMe'), response: { 200: ok(meResult) } },
    },
    async (request) => ({ success: true as const, data: await auth.me(requireAuth(request)) }),
  );

  app.get(
    '/api/auth/devices',
    {
      onRequest: app.authenticate,
      preHandler: app.userRateLimit,
      onSend: privateCacheOnSend,
      schema: { ...operation('listDevices'), response: { 200: ok(deviceListResult) } },
    },
    async (request) => ({ success: true as const, data: await auth.listDevices(requireAuth(request)) }),
  );

  app.delete(
    '/api/auth/devices/:uid',
    {
      onRequest: app.authenticate,
      preHandler: app.userRateLimit,
      schema: { ...operation('revokeDevice'), params: deviceParams, response: { 200: ok(revokeResult) } },
    },
    async (request) => ({ success: true as const, data: await auth.revokeDevice(requireAuth(request), request.params.uid) }),
  );

  app.patch(
    '/api/auth/devices/:uid',
    {
      onRequest: app.authenticate,
      preHandler: app.userRateLimit,
      schema: { ...operation('renameDevice'), params: deviceParams, body: renameDeviceBody, response: { 200: ok(deviceResult) } },
    },
    async (request) => ({ success: true as const, data: await auth.renameDevice(requireAuth(request), request.params.uid, request.body.name) }),
  );
}
