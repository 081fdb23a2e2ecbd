import { DomainError } from '@calsync/domain';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { DatabaseStateTracker } from '../database-state.js';
import { envelopeSchema } from '@calsync/wire';
import { ok } from '../envelope.js';
import { operation } from './operation.js';

/** Options of the health routes: the tracker that checks (and remembers) whether the database answers. */
export interface HealthRoutesOptions {
  readonly database: DatabaseStateTracker;
}


/**
 * Public monitoring routes: /health (status, uptime, memory and the database state last seen:
 * `degraded` while it was down), /health/live (the process answers) and /health/ready (checks the
 * database; 503 NOT_READY when it does not answer, logged by the tracker once per change).
 */
export async function healthRoutes(app: FastifyInstance, opts: HealthRoutesOptions): Promise<void> {
  app.get(
    '/health',
    {
      schema: {
        ...operation('getHealth'),
        response: {
          200: envelopeSchema(
            Type.Object({
              status: Type.String(),
              timestamp: Type.String({ format: 'date-time' }),
              uptime: Type.Number(),
              memory: Type.Object({ rss: Type.Number(), heapTotal: Type.Number(), heapUsed: Type.Number() }),
              database: Type.Object(
                {
                  status: Type.Union([Type.Literal('unknown'), Type.Literal('up'), Type.Literal('down')]),
                  checkedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
                  since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
                  error: Type.Optional(Type.String()),
                },
                { description: 'What the last readiness check saw (unknown before the first one).' },
              ),
            }),
          ),
        },
      },
    },
    async () => {
      const m = process.memoryUsage();
      const database = opts.database.state;
      return ok({
        status: database.status === 'down' ? 'degraded' : 'healthy',
        timestamp: new Date().toISOString(),
        uptime: process.uptime(),
        memory: { rss: m.rss, heapTotal: m.heapTotal, heapUsed: m.heapUsed },
        database,
      });
    },
  );
  app.get(
    '/health/live',
    { schema: { ...operation('getLiveness'), response: { 200: envelopeSchema(Type.Object({ status: Type.String() })) } } },
    async () => ok({ status: 'alive' }),
  );
  app.get(
    '/health/ready',
    { schema: { ...operation('getReadiness'), response: { 200: envelopeSchema(Type.Object({ status: Type.String() })) } } },
    async () => {
      if (!(await opts.database.probe())) throw new DomainError('NOT_READY', 'Service is not ready');
      return ok({ status: 'ready' });
    },
  );
}
