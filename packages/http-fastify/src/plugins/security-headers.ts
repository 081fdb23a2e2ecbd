import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet from 'helmet';

/**
 * helmet's default security headers (content security policy, HSTS, nosniff, frame and referrer
 * policies, …) on every answer. The middleware is made once: the Fastify wrapper made it again for
 * every request, parsing the content security policy each time, a few percent of a small push's
 * CPU. The web client and the docs page adjust the policy of their own answers (`onSend`).
 */
export const securityHeadersPlugin = fp(
  async (app: FastifyInstance) => {
    const apply = helmet();
    // helmet 8 throws an error rather than passing it on, and only ever calls back without one.
    app.addHook('onRequest', (request, reply, done) => apply(request.raw, reply.raw, () => done()));
  },
  { name: 'calsync-security-headers' },
);
