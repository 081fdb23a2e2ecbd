import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { deviceListResult, deviceResult, loginBody, meResult, profileBody, refreshBody, renameDeviceBody, sendOtpBody, sendOtpResult, signInResult, tokenPair, verifyOtpBody } from './auth-schemas.js';
import { EXAMPLES } from './examples.js';
import { OPERATIONS, errorCodesByStatus } from './operations.js';
import { appPasswordBodySchema, appPasswordResultSchema, createdFeedSchema, feedBodySchema, feedListSchema } from './interop-schemas.js';
import { occurrencePageSchema } from './occurrence-schemas.js';
import { pushBodySchema } from './record-schemas.js';
import { conflictPageSchema, pullResponseSchema, pushResponseSchema, resolveBodySchema, resolveResponseSchema } from './sync-schemas.js';
import { FormatRegistry, type TSchema } from '@sinclair/typebox';

// TypeBox's checker knows no formats by itself: date-time as the server writes it.
FormatRegistry.Set('date-time', (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v)));

const schemas: Record<string, { request?: TSchema; response?: TSchema }> = {
  sendOtp: { request: sendOtpBody, response: sendOtpResult },
  verifyOtp: { request: verifyOtpBody, response: signInResult },
  login: { request: loginBody, response: signInResult },
  refreshTokens: { request: refreshBody, response: tokenPair },
  getMe: { response: meResult },
  listDevices: { response: deviceListResult },
  renameDevice: { request: renameDeviceBody, response: deviceResult },
  updateMe: { request: profileBody, response: meResult },
  pushChanges: { request: pushBodySchema, response: pushResponseSchema },
  pullChanges: { response: pullResponseSchema },
  listConflicts: { response: conflictPageSchema },
  listOccurrences: { response: occurrencePageSchema },
  createAppPassword: { request: appPasswordBodySchema, response: appPasswordResultSchema },
  createFeed: { request: feedBodySchema, response: createdFeedSchema },
  listFeeds: { response: feedListSchema },
  resolveConflict: { request: resolveBodySchema, response: resolveResponseSchema },
};

describe('documented examples', () => {
  it.each(Object.entries(EXAMPLES))('%s: each example is valid against its schema at run time too', (id, example) => {
    const s = schemas[id];
    expect(s, id).toBeDefined();
    for (const part of ['request', 'response'] as const) {
      const value = (example as { request?: unknown; response?: unknown })[part];
      if (value === undefined) continue;
      const schema = s?.[part];
      expect(schema, `${id} ${part}`).toBeDefined();
      expect([...Value.Errors(schema as TSchema, value)].map((e) => `${e.path} ${e.message}`), `${id} ${part}`).toEqual([]);
    }
  });
  it('a wrong example is caught (the check is not vacuous)', () => {
    expect(Value.Check(pullResponseSchema, { ...EXAMPLES.pullChanges.response, events: [{ ...EXAMPLES.pullChanges.response.events[0], startTime: 'yesterday' }] })).toBe(false);
    expect(Value.Check(pullResponseSchema, { ...EXAMPLES.pullChanges.response, events: [{ ...EXAMPLES.pullChanges.response.events[0], version: null }] })).toBe(false);
  });
});

describe('operations table', () => {
  it('groups codes by the status the error handler answers with, each code once', () => {
    expect(Object.fromEntries(errorCodesByStatus('resolveConflict'))).toEqual({
      500: ['INTERNAL'],
      503: ['DATABASE_UNAVAILABLE'],
      400: ['VALIDATION_ERROR', 'INVALID_JSON'],
      413: ['PAYLOAD_TOO_LARGE'],
      415: ['UNSUPPORTED_MEDIA_TYPE'],
      401: ['UNAUTHORIZED', 'TOKEN_EXPIRED'],
      403: ['WRONG_TOKEN_TYPE'],
      429: ['RATE_LIMITED'],
      404: ['NOT_FOUND'],
      409: ['CONFLICT_RESOLVED', 'UNKNOWN_REFERENCE'],
    });
  });
  it('the public sign-in routes answer no bearer-token errors', () => {
    for (const id of ['sendOtp', 'verifyOtp', 'login', 'refreshTokens'] as const) {
      expect(OPERATIONS[id].errors).not.toContain('UNAUTHORIZED');
      expect(OPERATIONS[id].errors).not.toContain('TOKEN_EXPIRED');
    }
    expect([...errorCodesByStatus('sendOtp').keys()].sort()).toEqual([400, 413, 415, 429, 500, 502, 503]);
    expect([...errorCodesByStatus('verifyOtp').keys()].sort()).toEqual([400, 413, 415, 429, 500, 503]);
  });
});
