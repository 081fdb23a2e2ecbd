import { request } from 'node:http';

/** What a client that wrote its whole body first saw: the answer, or the error its write or read failed with. */
export interface WriteAllAnswer {
  readonly status: number;
  readonly text: string;
  readonly error: string | null;
}

/**
 * POSTs `body` to /api/sync/push with node:http as a simple client does: the whole body handed to
 * the socket at once (`end(body)`), with Content-Length or chunked, and the answer read after. A
 * server that answers and closes before reading the body makes this client fail with EPIPE or
 * ECONNRESET instead of reading the answer.
 */
export function writeAllThenRead(port: number, body: Buffer, chunked: boolean, headers: Readonly<Record<string, string>> = { authorization: 'Bearer user-1' }): Promise<WriteAllAnswer> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (answer: WriteAllAnswer): void => {
      if (settled) return;
      settled = true;
      resolve(answer);
    };
    const req = request({
      host: '127.0.0.1',
      port,
      path: '/api/sync/push',
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers, ...(chunked ? {} : { 'content-length': String(body.length) }) },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => done({ status: res.statusCode ?? 0, text, error: null }));
      res.on('error', (e) => done({ status: res.statusCode ?? 0, text, error: e.message }));
    });
    req.on('error', (e: Error & { code?: string }) => done({ status: 0, text: '', error: e.code ?? e.message }));
    if (chunked) {
      // Chunked: the body in 64 KiB writes, all handed over before the answer is looked at.
      for (let at = 0; at < body.length; at += 65536) req.write(body.subarray(at, at + 65536));
      req.end();
    } else {
      req.end(body);
    }
  });
}
