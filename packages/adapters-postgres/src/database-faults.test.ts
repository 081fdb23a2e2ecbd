import { DomainError } from '@calsync/domain';
import { describe, expect, it } from 'vitest';
import { databaseUnavailable, isDatabaseUnavailable } from './database-faults.js';

describe('isDatabaseUnavailable', () => {
  it('recognises a lost, refused or terminated connection', () => {
    for (const error of [
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      new Error('Connection terminated unexpectedly'),
      new Error('Client has encountered a connection error and is not queryable'),
      databaseUnavailable(new Error('x')),
    ]) {
      expect(isDatabaseUnavailable(error), String(error)).toBe(true);
    }
  });
  it('leaves statement errors and our own errors alone', () => {
    for (const error of [
      Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' }),
      Object.assign(new Error('duplicate key value'), { code: '23505' }),
      Object.assign(new Error('date/time field value out of range'), { code: '22008' }),
      new DomainError('NOT_FOUND', 'x'),
      new Error('something else'),
      null,
      'text',
    ]) {
      expect(isDatabaseUnavailable(error), String(error)).toBe(false);
    }
  });
  it('answers DATABASE_UNAVAILABLE with a Retry-After and keeps the cause', () => {
    const cause = new Error('gone');
    const error = databaseUnavailable(cause);
    expect(error).toMatchObject({ code: 'DATABASE_UNAVAILABLE', retryAfterSeconds: 2 });
    expect((error as { cause?: unknown }).cause).toBe(cause);
  });
});
