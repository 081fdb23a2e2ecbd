import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RECORD_TYPES } from '../records/types.js';
import { CursorCodec, ZERO_WATERMARKS } from './cursor-codec.js';

const codec = new CursorCodec('s3cret');
const wm = { calendars: 5n, events: 7n, tasks: 0n, reminders: 9007199254740993n };
const sign = (body: string, secret = 's3cret') => createHmac('sha256', secret).update(body).digest('base64url');
const cursorOf = (payload: unknown, secret = 's3cret') => {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${sign(body, secret)}`;
};

describe('CursorCodec', () => {
  it('round-trips watermarks in the documented format', () => {
    const c = codec.encode(42, wm);
    expect(c).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const [body, sig] = c.split('.') as [string, string];
    expect(sig).toBe(sign(body));
    expect(JSON.parse(Buffer.from(body, 'base64url').toString())).toEqual({
      v: 1, userId: 42, calendars: '5', events: '7', tasks: '0', reminders: '9007199254740993',
    });
    expect(codec.decode(c, 42)).toEqual({ reset: false, watermarks: wm });
  });
  it('resets on missing, malformed, tampered, foreign or wrong-version cursors', () => {
    const good = codec.encode(42, wm);
    const reset = { reset: true, watermarks: ZERO_WATERMARKS };
    expect(codec.decode(undefined, 42)).toEqual(reset);
    expect(codec.decode('', 42)).toEqual(reset);
    expect(codec.decode('garbage', 42)).toEqual(reset);
    expect(codec.decode(`${good}.x`, 42)).toEqual(reset);
    expect(codec.decode(good, 43)).toEqual(reset);
    expect(new CursorCodec('other').decode(good, 42)).toEqual(reset);
    const [body, sig] = good.split('.') as [string, string];
    expect(codec.decode(`${body}.${sig.slice(0, -2)}AA`, 42)).toEqual(reset);
    const last = sig.at(-1)!;
    const spare = String.fromCharCode(last.charCodeAt(0) ^ 1); // same 4 data bits, other spare bits
    if (/[A-Za-z0-9_-]/.test(spare)) expect(codec.decode(`${body}.${sig.slice(0, -1)}${spare}`, 42)).toEqual(reset);
    const forged = Buffer.from(JSON.stringify({ v: 1, userId: 42, calendars: '99', events: '7', tasks: '0', reminders: '1' })).toString('base64url');
    expect(codec.decode(`${forged}.${sig}`, 42)).toEqual(reset);
    expect(codec.decode(cursorOf({ v: 2, userId: 42, calendars: '1', events: '1', tasks: '1', reminders: '1' }), 42)).toEqual(reset);
    expect(codec.decode(cursorOf({ v: 1, userId: 42, calendars: 1, events: '1', tasks: '1', reminders: '1' }), 42)).toEqual(reset);
    expect(codec.decode(cursorOf({ v: 1, userId: 42, calendars: '-1', events: '1', tasks: '1', reminders: '1' }), 42)).toEqual(reset);
    expect(codec.decode(cursorOf([1, 2]), 42)).toEqual(reset);
    const notJson = Buffer.from('{nope').toString('base64url');
    expect(codec.decode(`${notJson}.${sign(notJson)}`, 42)).toEqual(reset);
  });
  it('writes one key per record type, and a cursor made before a type existed reads only that type from zero', () => {
    const payload = JSON.parse(Buffer.from(codec.encode(42, wm).split('.')[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(Object.keys(payload)).toEqual(['v', 'userId', ...RECORD_TYPES]);
    for (const missing of RECORD_TYPES) {
      const older = Object.fromEntries(Object.entries(payload).filter(([key]) => key !== missing));
      expect(codec.decode(cursorOf(older), 42)).toEqual({ reset: false, watermarks: { ...wm, [missing]: 0n } });
    }
  });

  it('accepts an old cursor without tasks, reading tasks from zero', () => {
    const old = cursorOf({ v: 1, userId: 42, calendars: '3', events: '4', reminders: '5' });
    expect(codec.decode(old, 42)).toEqual({ reset: false, watermarks: { calendars: 3n, events: 4n, tasks: 0n, reminders: 5n } });
  });
});
