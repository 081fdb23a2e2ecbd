import type { SmsSender } from '@calsync/domain';

/** Configuration of the SMS gateway (API.md "SMS gateway"). */
export interface SmsGatewayConfig {
  readonly url: string;
  readonly apiKey: string;
  readonly sender: string;
  /** Default 5000 ms. */
  readonly timeoutMs?: number;
}

/**
 * Why a message did not go out. The message names the failure (status, timeout) but never the
 * phone, the text or the key; the domain turns it into SMS_FAILED.
 */
export class SmsGatewayError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'SmsGatewayError';
  }
}

/**
 * Sends through the HTTP SMS gateway: `POST url` with `Authorization: Bearer <key>` and JSON
 * `{ from, to, text }`; any 2xx is success, anything else or no answer within the timeout fails.
 */
export class HttpSmsSender implements SmsSender {
  constructor(private readonly config: SmsGatewayConfig) {}

  async send(to: string, text: string): Promise<void> {
    let response: Response;
    try {
      response = await fetch(this.config.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.config.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ from: this.config.sender, to, text }),
        signal: AbortSignal.timeout(this.config.timeoutMs ?? 5000),
      });
    } catch (e) {
      const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
      throw new SmsGatewayError(timedOut ? 'SMS gateway timed out' : 'SMS gateway unreachable', null);
    }
    // Drain the body so the connection can be reused; its content is not needed.
    await response.arrayBuffer().catch(() => undefined);
    if (response.status < 200 || response.status > 299) {
      throw new SmsGatewayError(`SMS gateway answered ${response.status}`, response.status);
    }
  }
}
