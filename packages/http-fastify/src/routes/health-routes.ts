import { DomainError } from '@calsync/domain';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ok } from '../envelope.js';

/** Options of the health routes: how to tell whether the service can serve (database reachable). */
export interface HealthRoutesOptions {
  readonly readiness: () => Promise<boolean>;
}

const envelopeOf = <T extends ReturnType<typeof Type.Object>>(data: T) => Type.Object({ success: Type.Literal(true), data });

/**
 * Public monitoring routes: /health (status, uptime, memory), /health/live (the process answers)
 * and /health/ready (503 NOT_READY when readiness() is false or throws).
 */
export async function healthRoutes(app: FastifyInstance, opts: HealthRoutesOptions): Promise<void> {
  app.get(
    '/health',
    {
      schema: {
        tags: ['health'],
        summary: 'Service health',
        response: {
          200: envelopeOf(
            Type.Object({
              status: Type.String(),
              timestamp: Type.String({ format: 'date-time' }),
              uptime: Type.Number(),
              memory: Type.Object({ rss: Type.Number(), heapTotal: Type.Number(), heapUsed: Type.Number() }),
            }),
          ),
        },
      },
    },
    async () => {
      const m = process.memoryUsage();
      return ok({
        status: 'healthy',
        timestamp: new Date().toISOString(),
        uptime: process.uptime(),
        memory: { rss: m.rss, heapTotal: m.heapTotal, heapUsed: m.heapUsed },
      });
    },
  );
  app.get(
    '/health/live',
    { schema: { tags: ['health'], summary: 'Liveness probe', response: { 200: envelopeOf(Type.Object({ status: Type.String() })) } } },
    async () => ok({ status: 'alive' }),
  );
  app.get(
    '/health/ready',
    { schema: { tags: ['health'], summary: 'Readiness probe (database reachable)', response: { 200: envelopeOf(Type.Object({ status: Type.String() })) } } },
    async (request) => {
      let ready = false;
      try {
        ready = await opts.readiness();
      } catch (err) {
        request.log.warn({ err }, 'readiness check failed');
      }
      if (!ready) throw new DomainError('NOT_READY', 'Service is not ready');
      return ok({ status: 'ready' });
    },
  );
}
