import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the SMS gateway: accepts the gateway request of API.md and keeps the last
 * code sent to each phone, so the benchmark can sign users in through the real OTP flow.
 */
export class StandInGateway {
  private readonly codes = new Map<string, string>();
  private server: Server | null = null;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        try {
          const msg = JSON.parse(body) as { to: string; text: string };
          const code = /\b(\d{6})\b/.exec(msg.text)?.[1];
          if (code) this.codes.set(msg.to, code);
          res.writeHead(202, { 'content-type': 'application/json' }).end('{"accepted":true}');
        } catch {
          res.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/sms`;
  }

  /** The last code sent to `phone`, or throws. */
  codeFor(phone: string): string {
    const code = this.codes.get(phone);
    if (!code) throw new Error(`no SMS was sent to ${phone}`);
    return code;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
