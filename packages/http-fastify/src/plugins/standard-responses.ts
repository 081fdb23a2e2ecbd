import type { ErrorCode } from '@calsync/domain';
import { errorCodesByStatus, errorEnvelopeFor, errorEnvelopeSchema, EXAMPLES, OPERATIONS, type OperationId } from '@calsync/wire';
import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';

/** What each error code means for a caller, shown in the response descriptions. */
const MEANING: Readonly<Record<ErrorCode, string>> = {
  VALIDATION_ERROR: 'VALIDATION_ERROR: the request does not fit the schema (details: the failing paths)',
  EMPTY_CHANGESET: 'EMPTY_CHANGESET: the push holds no item',
  INVALID_JSON: 'INVALID_JSON: the body is not valid JSON',
  OTP_INVALID: 'OTP_INVALID: wrong code (counted as a try)',
  OTP_EXPIRED: 'OTP_EXPIRED: no live code for this phone; ask for a new one',
  UNAUTHORIZED: 'UNAUTHORIZED: no, bad or revoked access token',
  TOKEN_EXPIRED: 'TOKEN_EXPIRED: the access token expired; refresh, then retry once',
  REFRESH_INVALID: 'REFRESH_INVALID: the refresh token is unknown, expired, revoked, replayed or of another device; sign in again',
  INVALID_CREDENTIALS: 'INVALID_CREDENTIALS: e-mail or password is wrong',
  WRONG_TOKEN_TYPE: 'WRONG_TOKEN_TYPE: a refresh token used as access token, or the reverse',
  NOT_FOUND: "NOT_FOUND: no such resource of the caller's",
  EMAIL_TAKEN: 'EMAIL_TAKEN: another user has this e-mail',
  CONFLICT_RESOLVED: 'CONFLICT_RESOLVED: the conflict was already resolved',
  UNKNOWN_REFERENCE: 'UNKNOWN_REFERENCE: the record the restore needs (its calendar, event or parent task) is no longer live',
  BATCH_TOO_LARGE: 'BATCH_TOO_LARGE: an array holds more than 1000 items; split the batch',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE: the body exceeds BODY_LIMIT_BYTES',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE: the body is not application/json',
  RATE_LIMITED: 'RATE_LIMITED: too many requests; wait Retry-After seconds',
  OTP_ATTEMPTS_EXCEEDED: 'OTP_ATTEMPTS_EXCEEDED: too many wrong codes; ask for a new one after Retry-After seconds',
  OTP_RESEND_TOO_SOON: 'OTP_RESEND_TOO_SOON: a code was sent recently; wait Retry-After seconds',
  SMS_BUDGET_EXCEEDED: 'SMS_BUDGET_EXCEEDED: the hourly budget of sign-in codes (SMS_MAX_PER_HOUR) is spent; retry after Retry-After seconds',
  SMS_FAILED: 'SMS_FAILED: the SMS gateway did not accept the message',
  NOT_READY: 'NOT_READY: the database does not answer',
  DATABASE_UNAVAILABLE: 'DATABASE_UNAVAILABLE: the database could not be reached for this request; retry after Retry-After seconds',
  TOO_MANY_STREAMS: 'TOO_MANY_STREAMS: this server holds its maximum of notification streams; retry after Retry-After seconds',
  INTERNAL: 'INTERNAL: unexpected failure (logged with the request id, never detailed)',
};

/** Success descriptions per operation. */
const RETURNS: Readonly<Record<OperationId, string>> = {
  sendOtp: 'The code was sent; it expires after expiresInSeconds',
  verifyOtp: 'Signed in: a token pair, the user and the device',
  login: 'Signed in: a token pair, the user and the device',
  refreshTokens: 'A new token pair; the old refresh token is spent',
  logout: 'The session ended',
  getMe: 'The current user',
  listDevices: 'The devices signed in, the calling one marked current',
  revokeDevice: 'The device was revoked',
  renameDevice: 'The device with its new name',
  updateMe: 'The updated user',
  pushChanges: 'One result per item, in the order sent, and the conflicts the push created',
  pullChanges: 'One page of changes; pull again with nextCursor while hasMore',
  listConflicts: 'One page of unresolved conflicts',
  resolveConflict: 'The resolved conflict and, after restore, the record it wrote',
  listOccurrences: 'The occurrences that overlap the window, ordered by start',
  createAppPassword: 'The app password (shown this once) and its device',
  createFeed: 'The feed and its URL (shown this once)',
  listFeeds: 'The live feeds',
  deleteFeed: 'The feed ended',
  getFeed: 'The calendar as iCalendar (text/calendar)',
  openStream: 'The event stream: ready, then changed events, ending with closed',
  getStats: 'The counts',
  resetSync: 'Legacy sync fields reset',
  getHealth: 'The service answers',
  getLiveness: 'The process answers',
  getReadiness: 'The database answers',
  getMetrics: 'Prometheus text exposition format',
};

/** The statuses a route outside the operations table can answer (a fallback, so no route is undocumented). */
function fallbackStatuses(route: RouteOptions): number[] {
  const schema = (route.schema ?? {}) as { body?: unknown; querystring?: unknown; params?: unknown; security?: unknown };
  const statuses = [500];
  if (schema.body !== undefined) statuses.push(400, 413, 415);
  if (schema.querystring !== undefined || schema.params !== undefined) statuses.push(400);
  if (Array.isArray(schema.security)) statuses.push(401, 403, 429);
  if (route.url.startsWith('/api/')) statuses.push(503);
  return [...new Set(statuses)];
}

function isOperationId(id: unknown): id is OperationId {
  return typeof id === 'string' && Object.hasOwn(OPERATIONS, id);
}

type MutableSchema = { hide?: boolean; operationId?: unknown; body?: object; response?: Record<string, object> };

/**
 * Completes every route's documented responses from the wire's operations table: one error
 * envelope per status whose `code` is the enum of exactly the codes the operation declares for
 * it, a description on every response, and the documented examples on the request body and the
 * success answer. Routes declare only their success schema.
 */
export const standardResponsesPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRoute', (route) => {
      const schema = (route.schema ??= {}) as MutableSchema;
      if (schema.hide) return;
      const response = (schema.response ??= {});
      const id = schema.operationId;
      if (!isOperationId(id)) {
        for (const status of fallbackStatuses(route)) response[status] ??= { ...errorEnvelopeSchema, description: 'see error.code' };
        return;
      }
      for (const [status, codes] of errorCodesByStatus(id)) {
        response[status] = errorEnvelopeFor(codes, { description: codes.map((c) => MEANING[c]).join('; ') });
      }
      const example = (EXAMPLES as Partial<Record<OperationId, { request?: unknown; response?: unknown }>>)[id];
      const ok = response[200] as { description?: string; content?: unknown } | undefined;
      if (ok !== undefined) {
        const withExample = example?.response === undefined || ok.content !== undefined ? ok : { ...ok, examples: [{ success: true, data: example.response }] };
        response[200] = { ...withExample, description: ok.description ?? RETURNS[id] };
      }
      if (schema.body !== undefined && example?.request !== undefined) schema.body = { ...schema.body, examples: [example.request] };
    });
  },
  { name: 'calsync-standard-responses' },
);
