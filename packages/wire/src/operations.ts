import type { ErrorCode } from '@calsync/domain/rules';
import { HTTP_STATUS_BY_CODE } from './http-status.js';

/** One operation of the HTTP API: where it lives, what it is called and which error codes it can answer. */
export interface OperationSpec {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly tag: 'auth' | 'users' | 'sync' | 'legacy' | 'health';
  readonly summary: string;
  /** `bearer`: needs an access token (and is limited per user); `public`: no token. */
  readonly auth: 'bearer' | 'public';
  /** Every error code the operation can answer; the status of each is HTTP_STATUS_BY_CODE's. */
  readonly errors: readonly ErrorCode[];
}

/** Any route can fail unexpectedly (logged, never detailed). */
const ALWAYS = ['INTERNAL'] as const satisfies readonly ErrorCode[];
/** Any /api route needs the database, which may be unreachable for a moment. */
const API = ['INTERNAL', 'DATABASE_UNAVAILABLE'] as const satisfies readonly ErrorCode[];
/** A route that takes a body: broken JSON, a body over the limit, a body that is not JSON, a schema failure. */
const BODY = ['VALIDATION_ERROR', 'INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'] as const satisfies readonly ErrorCode[];
/** A bodyless POST/DELETE still parses what a client sends along (an empty JSON body is no body). */
const BODY_TRANSPORT = ['INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'] as const satisfies readonly ErrorCode[];
/** A route with a query or path schema. */
const PARAMS = ['VALIDATION_ERROR'] as const satisfies readonly ErrorCode[];
/** A route that needs an access token, limited per user. */
const BEARER = ['UNAUTHORIZED', 'TOKEN_EXPIRED', 'WRONG_TOKEN_TYPE', 'RATE_LIMITED'] as const satisfies readonly ErrorCode[];
/** A public sign-in route, limited per client address. */
const PUBLIC_AUTH = ['RATE_LIMITED'] as const satisfies readonly ErrorCode[];

/**
 * The operations of the API by operationId: the routes take their id and summary from here and
 * the OpenAPI document its error answers, so what is documented is what the server declares.
 */
export const OPERATIONS = {
  sendOtp: {
    method: 'POST', path: '/api/auth/send-otp', tag: 'auth', auth: 'public',
    summary: 'Send a 6-digit sign-in code by SMS',
    errors: [...API, ...BODY, ...PUBLIC_AUTH, 'OTP_RESEND_TOO_SOON', 'SMS_BUDGET_EXCEEDED', 'SMS_FAILED'],
  },
  verifyOtp: {
    method: 'POST', path: '/api/auth/verify-otp', tag: 'auth', auth: 'public',
    summary: 'Verify the code; a new phone creates the user and a default calendar',
    errors: [...API, ...BODY, ...PUBLIC_AUTH, 'OTP_INVALID', 'OTP_EXPIRED', 'OTP_ATTEMPTS_EXCEEDED'],
  },
  login: {
    method: 'POST', path: '/api/auth/login', tag: 'auth', auth: 'public',
    summary: 'Sign in with e-mail and password',
    errors: [...API, ...BODY, ...PUBLIC_AUTH, 'INVALID_CREDENTIALS'],
  },
  refreshTokens: {
    method: 'POST', path: '/api/auth/refresh', tag: 'auth', auth: 'public',
    summary: 'Rotate the refresh token and get a new access token',
    errors: [...API, ...BODY, ...PUBLIC_AUTH, 'REFRESH_INVALID', 'WRONG_TOKEN_TYPE'],
  },
  logout: {
    method: 'POST', path: '/api/auth/logout', tag: 'auth', auth: 'bearer',
    summary: 'End the session of this device (or the legacy one)',
    errors: [...API, ...BODY_TRANSPORT, ...BEARER],
  },
  getMe: {
    method: 'GET', path: '/api/auth/me', tag: 'auth', auth: 'bearer',
    summary: 'The current user',
    errors: [...API, ...BEARER],
  },
  listDevices: {
    method: 'GET', path: '/api/auth/devices', tag: 'auth', auth: 'bearer',
    summary: 'Devices signed in (revoked ones are not listed)',
    errors: [...API, ...BEARER],
  },
  revokeDevice: {
    method: 'DELETE', path: '/api/auth/devices/{uid}', tag: 'auth', auth: 'bearer',
    summary: 'Revoke a device: its session ends at once',
    errors: [...API, ...BODY_TRANSPORT, ...PARAMS, ...BEARER, 'NOT_FOUND'],
  },
  renameDevice: {
    method: 'PATCH', path: '/api/auth/devices/{uid}', tag: 'auth', auth: 'bearer',
    summary: 'Rename a device (the name its user sees in the device list)',
    errors: [...API, ...BODY, ...PARAMS, ...BEARER, 'NOT_FOUND'],
  },
  createAppPassword: {
    method: 'POST', path: '/api/auth/app-passwords', tag: 'auth', auth: 'bearer',
    summary: 'Make an app password for a calendar app (CalDAV): a device of platform caldav, ended by revoking it',
    errors: [...API, ...BODY, ...BEARER],
  },
  updateMe: {
    method: 'PATCH', path: '/api/users/me', tag: 'users', auth: 'bearer',
    summary: 'Update name, e-mail, password or notification settings (merged key by key)',
    errors: [...API, ...BODY, ...BEARER, 'EMAIL_TAKEN'],
  },
  pushChanges: {
    method: 'POST', path: '/api/sync/push', tag: 'sync', auth: 'bearer',
    summary: 'Push local changes (per-item results; conflicts are results, HTTP 200)',
    errors: [...API, ...BODY, ...BEARER, 'EMPTY_CHANGESET', 'BATCH_TOO_LARGE'],
  },
  pullChanges: {
    method: 'GET', path: '/api/sync/changes', tag: 'sync', auth: 'bearer',
    summary: 'Pull changes after the cursor (full snapshot with cursorReset when it is missing or invalid)',
    errors: [...API, ...PARAMS, ...BEARER],
  },
  listConflicts: {
    method: 'GET', path: '/api/sync/conflicts', tag: 'sync', auth: 'bearer',
    summary: 'Unresolved conflicts with conflictId > afterId, ascending',
    errors: [...API, ...PARAMS, ...BEARER],
  },
  listOccurrences: {
    method: 'GET', path: '/api/occurrences', tag: 'sync', auth: 'bearer',
    summary: 'Occurrences of events in a window: series expanded in their zones, exdates and overrides applied',
    errors: [...API, ...PARAMS, ...BEARER],
  },
  createFeed: {
    method: 'POST', path: '/api/feeds', tag: 'sync', auth: 'bearer',
    summary: 'Make a subscription feed (a read-only iCalendar URL) of a calendar',
    errors: [...API, ...BODY, ...BEARER, 'NOT_FOUND'],
  },
  listFeeds: {
    method: 'GET', path: '/api/feeds', tag: 'sync', auth: 'bearer',
    summary: 'The live subscription feeds (without their URLs)',
    errors: [...API, ...BEARER],
  },
  deleteFeed: {
    method: 'DELETE', path: '/api/feeds/{id}', tag: 'sync', auth: 'bearer',
    summary: 'End a subscription feed: its URL answers 404 from now on',
    errors: [...API, ...BODY_TRANSPORT, ...PARAMS, ...BEARER, 'NOT_FOUND'],
  },
  getFeed: {
    method: 'GET', path: '/feeds/{file}', tag: 'sync', auth: 'public',
    summary: 'A subscription feed: the calendar as iCalendar (text/calendar), ETag and 304',
    errors: [...ALWAYS, 'NOT_FOUND', 'DATABASE_UNAVAILABLE'],
  },
  resolveConflict: {
    method: 'POST', path: '/api/sync/conflicts/{id}/resolve', tag: 'sync', auth: 'bearer',
    summary: 'Resolve a conflict: restore the loser snapshot or dismiss it',
    errors: [...API, ...BODY, ...PARAMS, ...BEARER, 'NOT_FOUND', 'CONFLICT_RESOLVED', 'UNKNOWN_REFERENCE'],
  },
  openStream: {
    method: 'GET', path: '/api/sync/stream', tag: 'sync', auth: 'bearer',
    summary: 'Live data-changed notifications (server-sent events)',
    errors: [...API, ...PARAMS, ...BEARER, 'TOO_MANY_STREAMS', 'NOT_READY'],
  },
  getStats: {
    method: 'GET', path: '/api/users/stats', tag: 'legacy', auth: 'bearer',
    summary: 'Counts of live records, conflicts, devices and legacy sync fields',
    errors: [...API, ...BEARER],
  },
  resetSync: {
    method: 'POST', path: '/api/users/reset-sync', tag: 'legacy', auth: 'bearer',
    summary: "Debugging tool: every event's syncStatus to SYNCED, lastSyncTime to null (no new versions)",
    errors: [...API, ...BODY_TRANSPORT, ...BEARER],
  },
  getHealth: { method: 'GET', path: '/health', tag: 'health', auth: 'public', summary: 'Service health', errors: [...ALWAYS] },
  getLiveness: { method: 'GET', path: '/health/live', tag: 'health', auth: 'public', summary: 'Liveness probe', errors: [...ALWAYS] },
  getReadiness: {
    method: 'GET', path: '/health/ready', tag: 'health', auth: 'public',
    summary: 'Readiness probe (database reachable)',
    errors: [...ALWAYS, 'NOT_READY'],
  },
  getMetrics: { method: 'GET', path: '/metrics', tag: 'health', auth: 'public', summary: 'Prometheus metrics (text exposition format)', errors: [...ALWAYS] },
} as const satisfies Record<string, OperationSpec>;

/** An operationId of the API. */
export type OperationId = keyof typeof OPERATIONS;

/** The error codes `operationId` can answer, grouped by HTTP status (each code once, in table order). */
export function errorCodesByStatus(operationId: OperationId): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of OPERATIONS[operationId].errors as readonly ErrorCode[]) {
    const status = HTTP_STATUS_BY_CODE[code];
    const codes = byStatus.get(status) ?? [];
    if (!codes.includes(code)) codes.push(code);
    byStatus.set(status, codes);
  }
  return byStatus;
}

/** True when `operationId` documents `code` (the error handler warns about any answer outside its table). */
export function documentsErrorCode(operationId: string, code: ErrorCode): boolean {
  const op = (OPERATIONS as Record<string, OperationSpec>)[operationId];
  return op === undefined || op.errors.includes(code);
}
