import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeAllThenRead } from '@calsync/testkit';
import { asUser, build } from '../test-support/index.js';

// What a client sees over a real socket at the edges of HTTP: bodies over the limit, parser
// errors before routing, a preflight without Origin, a body shorter than its Content-Length.

let app: FastifyInstance;
let port: number;
beforeAll(async () => {
  ({ app } = await build({ standIns: ['engine', 'sign-in'], env: { RATE_LIMIT_MAX_REQUESTS: '1000000' } }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await app.close();
});

/** A push body of about `bytes` bytes of JSON. */
function bigBody(bytes: number): Buffer {
  const item = (i: number) => ({ uid: `t${i}`, op: 'upsert', baseVersion: null, title: 'x'.repeat(900) });
  const items = [];
  for (let i = 0, size = 20; size < bytes; i++) {
    items.push(item(i));
    size += 960;
  }
  return Buffer.from(JSON.stringify({ tasks: items }));
}

/** A raw exchange over one socket: writes `text`, returns everything the server sent until it closed or `waitMs` passed. */
function raw(text: string | Buffer, waitMs = 8000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    const done = () => {
      socket.destroy();
      resolve(got);
    };
    const timer = setTimeout(done, waitMs);
    socket.on('data', (d) => {
      got += d.toString('latin1');
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(got);
    });
    socket.on('error', () => {});
    socket.write(text);
  });
}

const sizes = [['1.2 MB', 1.2e6], ['2 MB', 2e6], ['10 MB', 10e6]] as const;

describe('a body over the limit (1 MB): the client that is still sending gets the 413', () => {
  it.each(sizes)('undici, %s', async (_name, bytes) => {
    const body = bigBody(bytes);
    for (let round = 0; round < 3; round++) {
      const res = await undiciRequest(`http://127.0.0.1:${port}/api/sync/push`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...asUser(1) },
        body,
      });
      expect(res.statusCode).toBe(413);
      expect(await res.body.json()).toMatchObject({ success: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
    }
  });

  it.each(sizes)("Node's http client writing the whole body before it reads, %s (also chunked)", async (_name, bytes) => {
    const body = bigBody(bytes);
    for (const chunked of [false, true]) {
      const answer = await writeAllThenRead(port, body, chunked);
      expect(answer.error, `${chunked ? 'chunked' : 'content-length'}: ${answer.error}`).toBeNull();
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.text)).toMatchObject({ success: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
    }
  });

  it('a body over the drain bound (16 MB) still gets the 413 or a closed connection, never a hang', async () => {
    const answer = await writeAllThenRead(port, Buffer.alloc(20e6, 0x20), false);
    if (answer.error === null) expect(answer.status).toBe(413);
    else expect(answer.error).toMatch(/EPIPE|ECONNRESET|socket hang up/);
  });
});

describe('every answer is in the error envelope', () => {
  const envelopeOf = (response: string) => {
    const [head = '', body = ''] = response.split('\r\n\r\n');
    return { status: Number(head.split(' ')[1]), head, json: JSON.parse(body) as { success: boolean; error: { code: string } } };
  };

  it('a header section over the limit (431)', async () => {
    const res = envelopeOf(await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(res.status).toBe(431);
    expect(res.json).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
  });

  it('a malformed request line or method, and a bad chunk', async () => {
    for (const text of [
      'G@T /health HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /health HTTP/9.9\r\nHost: x\r\n\r\n',
      'POST /api/sync/push HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n',
    ]) {
      const res = envelopeOf(await raw(text));
      expect(res.status, text).toBe(400);
      expect(res.json).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    }
  });

  it('a CORS preflight without Origin', async () => {
    const res = await undiciRequest(`http://127.0.0.1:${port}/api/sync/push`, { method: 'OPTIONS', headers: { 'access-control-request-method': 'POST' } });
    expect(res.statusCode).toBe(400);
    expect(await res.body.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
  });

  it('a CORS preflight with Origin but without the method it asks for is refused with the envelope', async () => {
    const res = await undiciRequest(`http://127.0.0.1:${port}/api/sync/push`, { method: 'OPTIONS', headers: { origin: 'https://app.example' } });
    expect(res.statusCode).toBe(400);
    expect(await res.body.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
  });

  it('a body shorter than its Content-Length answers 400 within a few seconds instead of keeping the socket', async () => {
    const text = await raw('POST /api/sync/push HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer user-1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"tasks":[]', 20_000);
    const res = envelopeOf(text);
    expect([400, 408]).toContain(res.status);
    expect(res.json.success).toBe(false);
  });
});

describe('a body within the limit reaches the route however it arrives', () => {
  const body = JSON.stringify({ events: [{ uid: 'e-edge', op: 'delete', baseVersion: '3' }] });
  const head = `POST /api/sync/push HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer user-1\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
  /** Writes `parts` over one socket, `gapMs` apart, and returns the answer (the server closes after it). */
  function exchange(parts: readonly string[], gapMs: number): Promise<string> {
    return new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let got = '';
      socket.on('data', (d) => (got += d.toString('latin1')));
      socket.on('close', () => resolve(got));
      socket.on('error', () => {});
      parts.forEach((part, i) => setTimeout(() => socket.write(part), i * gapMs));
    });
  }
  const answerOf = (text: string) => JSON.parse(text.split('\r\n\r\n')[1] ?? '') as unknown;

  it('all at once with its headers, or in pieces after them: the same answer', async () => {
    const whole = await exchange([head + body], 0);
    const pieces = await exchange([head, body.slice(0, 20), body.slice(20)], 60);
    expect(whole.split(' ')[1]).toBe('200');
    expect(pieces.split(' ')[1]).toBe('200');
    expect(answerOf(pieces)).toEqual(answerOf(whole));
    expect(answerOf(whole)).toMatchObject({ success: true, data: { events: [{ uid: 'e-edge', status: 'deleted' }] } });
  });
});
