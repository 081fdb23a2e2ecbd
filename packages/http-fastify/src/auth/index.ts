import type { FastifyInstance } from 'fastify';
import type { AuthService } from '@calsync/domain';
import type { AppConfig } from '../config-types.js';
import { authRoutes } from '../routes/auth-routes.js';
import { profileRoutes } from '../routes/profile-routes.js';
import { authPlugin } from './auth-plugin.js';

export * from './auth-plugin.js';
export * from './wiring.js';

/**
 * Everything sign-in adds to the app, in order: the auth plugin (authenticate decorator), the
 * /api/auth routes and PATCH /api/users/me. Fits `SignInRegistrar` of sign-in.ts.
 */
export async function registerAuth(app: FastifyInstance, opts: { auth: AuthService; config: AppConfig }): Promise<void> {
  await app.register(authPlugin, opts);
  await app.register(authRoutes, opts);
  await app.register(profileRoutes, opts);
}
