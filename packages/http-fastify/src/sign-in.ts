import type { AuthService } from '@calsync/domain';
import type { FastifyInstance } from 'fastify';
import { registerAuth } from './auth/index.js';
import type { AppConfig } from './config-types.js';

/** What the sign-in registration receives. */
export interface SignInOptions {
  readonly auth: AuthService;
  readonly config: AppConfig;
}

/** Registers sign-in on the app: decorates `app.authenticate` and adds the auth and profile routes. */
export type SignInRegistrar = (app: FastifyInstance, opts: SignInOptions) => Promise<void>;

/** The real sign-in (auth plugin, /api/auth routes, PATCH /api/users/me), from the auth module. */
export const registerSignIn: SignInRegistrar = registerAuth;
