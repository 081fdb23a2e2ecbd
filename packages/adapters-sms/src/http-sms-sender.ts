import type { SmsSender } from '@calsync/domain';

/** Configuration of the SMS gateway (docs/sms-gateway.md). */
export interface SmsGatewayConfig {
  readonly url: string;
  readonly apiKey: string;
  readonly sender: string;
  /** Default 5000 ms. */
  readonly timeoutMs?: number;
}

/** How a send failed: no connection, no answer in time, or an answer other than 2xx. */
export type SmsFailureKind = 'unreachable' | 'timeout' | 'rejected';

/**
 * Why a message did not go out. The message names the failure for the operator's log (the network
 * error, the timeout, or the gateway's status and short reason) but never the phone, the text or
 * the key; the domain turns it into SMS_FAILED for the caller.
 */
export class SmsGatewayError extends Error {
  constructor(
    message: string,
    readonly kind: SmsFailureKind,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'SmsGatewayError';
  }
}

/** Longest gateway reason kept in a log line. */
const REASON_MAX = 120;

/** One line of at most REASON_MAX characters. */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what must not reach a log line
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, REASON_MAX);
}

/** Runs of digits long enough to be a phone number or a code are masked: the gateway's reason may echo them. */
function masked(text: string): string {
  return oneLine(text.replace(/\+?\d[\d\s().-]{4,}\d/g, '…'));
}

/** The gateway's short reason from its answer body: a JSON error/message field, else the first line of text. */
export function gatewayReason(body: string): string {
  let reason = body.split('\n', 1)[0] ?? '';
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    const field = [json.error, json.message, json.reason, json.detail, (json.error as Record<string, unknown> | undefined)?.message].find((v) => typeof v === 'string');
    if (typeof field === 'string') reason = field;
  } catch {
    // not JSON: the first line of text it is
  }
  return masked(reason);
}

/** The network error's own code and text (`ECONNREFUSED 127.0.0.1:1`), from fetch's `cause`. */
function networkReason(e: unknown): string {
  const cause = e instanceof Error ? (e.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const message = typeof cause?.message === 'string' ? cause.message : e instanceof Error ? e.message : String(e);
  // Our own network error (address and port of the gateway), never the phone or the text.
  return oneLine(code && !message.includes(code) ? `${code} ${message}` : message);
}

/**
 * Sends through the HTTP SMS gateway: `POST url` with `Authorization: Bearer <key>` and JSON
 * `{ from, to, text }`; any 2xx is success, anything else or no answer within the timeout fails.
 */
export class HttpSmsSender implements SmsSender {
  constructor(private readonly config: SmsGatewayConfig) {}

  async send(to: string, text: string): Promise<void> {
    const timeoutMs = this.config.timeoutMs ?? 5000;
    let response: Response;
    try {
      response = await fetch(this.config.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.config.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ from: this.config.sender, to, text }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
      if (timedOut) throw new SmsGatewayError(`SMS gateway timed out after ${timeoutMs} ms`, 'timeout', null);
      throw new SmsGatewayError(`SMS gateway unreachable (${networkReason(e)})`, 'unreachable', null);
    }
    // Read the body (so the connection can be reused); on a failure it holds the gateway's reason.
    const body = await response.text().catch(() => '');
    if (response.status < 200 || response.status > 299) {
      const reason = gatewayReason(body);
      const statusLine = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
      throw new SmsGatewayError(`SMS gateway answered ${statusLine}${reason ? `: ${reason}` : ''}`, 'rejected', response.status);
    }
  }
}
