import { describe, expect, it } from 'vitest';
import { findUnstorableText, unstorableTextReason } from './storable-text.js';

describe('storable text', () => {
  it('refuses NUL and lone surrogates, keeps everything else (pairs, controls, emoji)', () => {
    expect(unstorableTextReason('plain \t\n\u0001 text \ud83d\ude00')).toBeNull();
    expect(unstorableTextReason('a\u0000')).toContain('NUL');
    expect(unstorableTextReason('\udc00 low alone')).toContain('surrogate');
    expect(unstorableTextReason('high alone \ud800')).toContain('surrogate');
  });
  it('finds the first bad string or key anywhere in a value, with its path', () => {
    expect(findUnstorableText({ a: [1, 'ok', { b: null }], c: true }, 'body')).toBeNull();
    expect(findUnstorableText({ a: [1, 'ok', { b: 'x\u0000' }] }, 'body')).toEqual({ path: 'body/a/2/b', message: expect.stringContaining('NUL') });
    expect(findUnstorableText({ 'k\u0000': 1 }, 'body')?.path).toBe('body');
    expect(findUnstorableText('\u0000', 'params/uid')?.path).toBe('params/uid');
  });
  it('walks any nesting depth without recursion', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(findUnstorableText(deep, 'body')?.message).toContain('NUL');
  });
});
