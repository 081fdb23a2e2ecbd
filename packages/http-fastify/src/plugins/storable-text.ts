import { DomainError, findUnstorableText } from '@calsync/domain';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's body is checked item by item by the domain (push: a per-item INVALID_FIELD),
     * so the request-wide text check leaves the body alone.
     */
    textCheckedPerItem?: boolean;
  }
}

/**
 * preValidation of every route: refuses path parameters and bodies holding text PostgreSQL cannot
 * store (NUL, lone surrogates; the domain's rule) with 400 VALIDATION_ERROR, before any handler or
 * store sees them (a callback hook: an async one costs a promise per request). Query strings are
 * left alone: no query value is ever stored, and an unreadable sync cursor must still reset rather
 * than fail.
 */
export function refuseUnstorableText(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const found =
    findUnstorableText(request.params, 'params') ??
    (request.routeOptions.config.textCheckedPerItem ? null : findUnstorableText(request.body, 'body'));
  done(found ? new DomainError('VALIDATION_ERROR', 'Request validation failed', [{ path: found.path, message: found.message }]) : undefined);
}

/** Registers `refuseUnstorableText` for every route of the app. */
export const storableTextPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('preValidation', refuseUnstorableText);
  },
  { name: 'calsync-storable-text' },
);
