import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the stand-in gateway received. */
export interface GatewayRequest {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A running stand-in gateway. */
export interface StandInSmsGateway {
  readonly url: string;
  readonly requests: GatewayRequest[];
  /** Status to answer with (default 202). */
  status: number;
  /** Delay before answering, in ms (to provoke the client's timeout). */
  delayMs: number;
  /** The `error` field of a non-2xx answer's JSON body (what a real gateway says about its refusal). */
  rejectReason: string;
  /** The 6-digit code of the last message to `phone`. */
  lastCode(phone: string): string;
  close(): Promise<void>;
}

/**
 * A real local HTTP server on port 0 standing in for the SMS gateway of docs/sms-gateway.md: records every
 * request and answers with a configurable status and delay. No mocked fetch anywhere.
 */
export async function startStandInSmsGateway(): Promise<StandInSmsGateway> {
  const requests: GatewayRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = () => {
        res.statusCode = gateway.status;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(gateway.status < 300 ? { accepted: true } : { accepted: false, error: gateway.rejectReason }));
      };
      if (gateway.delayMs > 0) {
        const t = setTimeout(() => {
          timers.delete(t);
          answer();
        }, gateway.delayMs);
        timers.add(t);
      } else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const gateway: StandInSmsGateway = {
    url: `http://127.0.0.1:${port}/messages`,
    requests,
    status: 202,
    delayMs: 0,
    rejectReason: 'message rejected',
    lastCode(phone) {
      for (let i = requests.length - 1; i >= 0; i--) {
        const body = JSON.parse(requests[i]?.body ?? '{}') as { to?: string; text?: string };
        const code = body.to === phone ? body.text?.match(/\b(\d{6})\b/)?.[1] : undefined;
        if (code) return code;
      }
      throw new Error(`no code was sent to ${phone}`);
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return gateway;
}
