import type { AuthApi } from '@calsync/domain';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { envelopeSchema as ok, meResult, profileBody } from '@calsync/wire';
import { requireAuth } from '../auth-context.js';
import { operation } from './operation.js';

/** Options of the profile route. */
export interface ProfileRoutesOptions {
  readonly auth: AuthApi;
}

/** PATCH /api/users/me: how a phone user adds an e-mail/password login (docs/api.md). */
export async function profileRoutes(parent: FastifyInstance, opts: ProfileRoutesOptions): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  app.patch(
    '/api/users/me',
    {
      onRequest: app.authenticate,
      preHandler: app.userRateLimit,
      schema: { ...operation('updateMe'), body: profileBody, response: { 200: ok(meResult) } },
    },
    async (request) => ({ success: true as const, data: await opts.auth.updateProfile(requireAuth(request), request.body) }),
  );
}
