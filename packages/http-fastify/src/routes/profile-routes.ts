import type { AuthService } from '@calsync/domain';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { envelopeSchema as ok, errorEnvelopeSchema as failure, meResult, profileBody } from '@calsync/wire';
import { requireAuth } from '../auth-context.js';
import type { AppConfig } from '../config-types.js';

/** Options of the profile route. */
export interface ProfileRoutesOptions {
  readonly auth: AuthService;
  readonly config: AppConfig;
}

/** PATCH /api/users/me: how a phone user adds an e-mail/password login (API.md). */
export async function profileRoutes(parent: FastifyInstance, opts: ProfileRoutesOptions): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  app.patch(
    '/api/users/me',
    {
      onRequest: app.authenticate,
      preHandler: app.userRateLimit,
      schema: {
        tags: ['users'],
        security: [{ bearerAuth: [] }],
        summary: 'Update name, e-mail, password or notification settings (merged key by key)',
        body: profileBody,
        response: { 200: ok(meResult), 400: failure, 401: failure, 409: failure },
      },
    },
    async (request) => ({ success: true as const, data: await opts.auth.updateProfile(requireAuth(request), request.body) }),
  );
}
