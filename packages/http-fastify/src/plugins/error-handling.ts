import { isDomainError, type ErrorCode } from '@calsync/domain';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { errorEnvelope } from '../envelope.js';
import { documentsErrorCode, HTTP_STATUS_BY_CODE } from '@calsync/wire';

/** One failure, ready for the envelope: status, code, safe message, optional details and Retry-After. */
export interface HttpFailure {
  readonly status: number;
  readonly code: ErrorCode;
  readonly message: string;
  readonly details?: unknown;
  readonly retryAfterSeconds?: number;
}

/** A failing path of schema validation, as sent in `error.details`. */
export interface ValidationIssue {
  readonly path: string;
  readonly message: string;
}

const FASTIFY_CODES: Readonly<Record<string, { code: ErrorCode; message: string }>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'INVALID_JSON', message: 'Request body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'INVALID_JSON', message: 'Request body is empty but content-type is application/json' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Request body must be application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'VALIDATION_ERROR', message: 'Request body size did not match Content-Length' },
};

function validationIssues(err: FastifyError): ValidationIssue[] {
  const context = err.validationContext ?? 'request';
  return (err.validation ?? []).map((v) => {
    const params = v.params as Record<string, unknown> | undefined;
    const extra =
      typeof params?.additionalProperty === 'string'
        ? `/${params.additionalProperty}`
        : typeof params?.missingProperty === 'string'
          ? `/${params.missingProperty}`
          : '';
    return { path: `${context}${v.instancePath}${extra}`, message: v.message ?? 'is invalid' };
  });
}

/**
 * Maps anything thrown in a request to its documented status and code (docs/api.md). Unknown errors become 500
 * INTERNAL with a generic message: their text may hold SQL or secrets.
 */
export function toHttpFailure(err: unknown, bodyLimitBytes: number): HttpFailure {
  if (isDomainError(err)) {
    return {
      status: HTTP_STATUS_BY_CODE[err.code],
      code: err.code,
      message: err.code === 'INTERNAL' ? 'Internal server error' : err.message,
      ...(err.details === undefined ? {} : { details: err.details }),
      ...(err.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: err.retryAfterSeconds }),
    };
  }
  const fe = err as Partial<FastifyError> | null;
  if (fe && Array.isArray(fe.validation)) {
    return { status: 400, code: 'VALIDATION_ERROR', message: 'Request validation failed', details: validationIssues(fe as FastifyError) };
  }
  const known = fe?.code ? FASTIFY_CODES[fe.code] : undefined;
  if (known) return { status: HTTP_STATUS_BY_CODE[known.code], ...known };
  const status = typeof fe?.statusCode === 'number' ? fe.statusCode : 500;
  if (status === 413) return { status, code: 'PAYLOAD_TOO_LARGE', message: `Request body exceeds ${bodyLimitBytes} bytes` };
  if (status === 415) return { status, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Request body must be application/json' };
  if (status === 404) return { status, code: 'NOT_FOUND', message: 'Not found' };
  if (status === 401) return { status, code: 'UNAUTHORIZED', message: 'Authentication required' };
  if (status === 429) return { status, code: 'RATE_LIMITED', message: 'Too many requests' };
  if (status >= 400 && status < 500) return { status: 400, code: 'VALIDATION_ERROR', message: 'Bad request' };
  return { status: 500, code: 'INTERNAL', message: 'Internal server error' };
}

const failureCodes = new WeakMap<FastifyRequest, ErrorCode>();

/** The error code a request was answered with (null for a success): the request log line and error metrics read it. */
export function failureCodeOf(request: FastifyRequest): ErrorCode | null {
  return failureCodes.get(request) ?? null;
}

/** Sends `failure` in the error envelope, with Retry-After when it has one. */
export function sendFailure(reply: FastifyReply, failure: HttpFailure): FastifyReply {
  failureCodes.set(reply.request, failure.code);
  if (failure.retryAfterSeconds !== undefined) reply.header('retry-after', String(Math.max(1, Math.ceil(failure.retryAfterSeconds))));
  // Serialised here, not by the route's response schema: an envelope always goes out whole.
  return reply
    .code(failure.status)
    .type('application/json; charset=utf-8')
    .serializer((payload) => JSON.stringify(payload))
    .send(errorEnvelope(failure.code, failure.message, failure.details));
}

/** Options of the error-handling plugin. */
export interface ErrorHandlingOptions {
  readonly bodyLimitBytes: number;
}

/** The cause chain of an error as one short line (`SMS gateway answered 503 …`), no stack. */
export function causeText(err: unknown): string | undefined {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    parts.push(e instanceof Error ? e.message : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.length === 0 ? undefined : parts.join(': ').slice(0, 500);
}

/**
 * The one error handler and not-found handler: every failure, Fastify's own included, answers in
 * the error envelope. An unexpected failure (500 INTERNAL) is logged at error with its stack; a
 * known 5xx with a cause (SMS_FAILED: gateway unreachable, timed out or its answer) is logged at
 * error as one line naming the cause; the request line (request-log plugin) carries the rest.
 */
export const errorHandlingPlugin = fp<ErrorHandlingOptions>(
  async (app: FastifyInstance, opts) => {
    app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
      const failure = toHttpFailure(err, opts.bodyLimitBytes);
      if (failure.code === 'INTERNAL') request.log.error({ err }, 'request failed');
      else if (failure.status >= 500 && isDomainError(err) && err.cause !== undefined) {
        request.log.error({ code: failure.code, cause: causeText(err.cause) }, `${failure.code}: ${err.message}`);
      }
      // The operations table documents every code a route answers; an answer outside it is a bug to fix there.
      const operationId = (request.routeOptions.schema as { operationId?: unknown } | undefined)?.operationId;
      if (typeof operationId === 'string' && !documentsErrorCode(operationId, failure.code)) {
        request.log.error({ operationId, code: failure.code }, 'error code missing from the operations table');
      }
      return sendFailure(reply, failure);
    });
    app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
      return sendFailure(reply, { status: 404, code: 'NOT_FOUND', message: `Route ${request.method} ${request.url.split('?')[0]?.slice(0, 200)} not found` });
    });
  },
  { name: 'calsync-error-handling' },
);
