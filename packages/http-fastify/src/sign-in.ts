import type { AuthService } from '@calsync/domain';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from './config-types.js';

/** What the sign-in registration receives. */
export interface SignInOptions {
  readonly auth: AuthService;
  readonly config: AppConfig;
}

/** Registers sign-in on the app: decorates `app.authenticate` and adds the auth and profile routes. */
export type SignInRegistrar = (app: FastifyInstance, opts: SignInOptions) => Promise<void>;

/** The real sign-in: the auth plugin, /api/auth routes and PATCH /api/users/me. */
export const registerSignIn: SignInRegistrar = async () => {
  throw new Error('sign-in plugin not available yet');
};
