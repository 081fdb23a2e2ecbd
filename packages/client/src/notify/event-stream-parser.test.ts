import { describe, expect, it } from 'vitest';
import { EventStreamParser, type ServerSentEvent } from './event-stream-parser.js';

describe('EventStreamParser', () => {
  it('dispatches events across arbitrary chunk borders, CRLF included, and skips comments', () => {
    const seen: ServerSentEvent[] = [];
    const p = new EventStreamParser((e) => seen.push(e));
    const text = 'event: ready\r\ndata: {"version":"1"}\r\n\r\n: heartbeat\n\nid: 7\nevent: changed\ndata: a\ndata: b\n\ndata: plain\r\r\n';
    for (const ch of text) p.feed(ch);
    expect(seen).toEqual([
      { event: 'ready', data: '{"version":"1"}', id: null },
      { event: 'changed', data: 'a\nb', id: '7' },
      { event: 'message', data: 'plain', id: '7' },
    ]);
  });

  it('an event without data is not dispatched', () => {
    const seen: ServerSentEvent[] = [];
    const p = new EventStreamParser((e) => seen.push(e));
    p.feed('event: ping\n\nretry: 10\n\n');
    expect(seen).toEqual([]);
  });
});
