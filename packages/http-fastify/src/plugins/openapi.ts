import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** Where the raw OpenAPI JSON is served (spec "Health and monitoring routes"). */
export const OPENAPI_JSON_PATH = '/api-docs-json';

/**
 * OpenAPI 3.1 generated from the route schemas, Swagger UI at /api-docs and the raw description at
 * /api-docs-json. 3.1 because nullable fields use JSON Schema `type: null` unions.
 */
export const openApiPlugin = fp(
  async (app: FastifyInstance) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'calsync',
          description: 'Calendar sync backend: SMS sign-in, device-aware JWT sessions, two-way offline sync.',
          version: '0.1.0',
        },
        components: {
          securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
        },
      },
    });
    await app.register(swaggerUi, { routePrefix: '/api-docs', staticCSP: true });
    app.get(OPENAPI_JSON_PATH, { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'calsync-openapi' },
);
