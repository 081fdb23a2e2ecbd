import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ERROR_CODES, errorEnvelopeSchema } from '@calsync/wire';
import { hoistTitledSchemas } from './openapi-components.js';

/** Named schemas no operation refers to directly but every client wants: any error, any code. */
const EXTRA_COMPONENTS = {
  ErrorEnvelope: JSON.parse(JSON.stringify(errorEnvelopeSchema)),
  ErrorCode: { type: 'string', enum: [...ERROR_CODES], description: 'every stable error code; each operation documents its own per status' },
};

/** Where the raw OpenAPI JSON is served (docs/api.md). */
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
          description:
            'Calendar sync backend: SMS sign-in, device-aware JWT sessions, two-way offline sync. Every JSON answer is an envelope: `{ success: true, data }` or `{ success: false, error: { code, message, details? } }`. Unknown body fields are refused (400 VALIDATION_ERROR naming the field), except the server-owned and legacy keys a push item may carry, which are ignored. The protocol is described in docs/protocol.md of the repository.',
          version: '0.1.0',
        },
        components: {
          securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
        },
      },
      transformObject: (documentObject) => hoistTitledSchemas((documentObject as { openapiObject: object }).openapiObject, EXTRA_COMPONENTS),
    });
    await app.register(swaggerUi, {
      routePrefix: '/api-docs',
      staticCSP: true,
      // The docs page only: its policy without `upgrade-insecure-requests`, which made a browser that
      // opened it over plain http by IP address or host name fetch every asset over https (a blank
      // page). The API's answers keep helmet's defaults.
      transformStaticCSP: (policy: string) => policy.replace(/\s*upgrade-insecure-requests;?/g, '').trim(),
    });
    app.get(OPENAPI_JSON_PATH, { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'calsync-openapi' },
);
