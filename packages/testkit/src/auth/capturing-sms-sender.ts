import type { SmsSender } from '@calsync/domain';

/** An SmsSender that keeps every message, so tests can read the code; can be told to fail. */
export class CapturingSmsSender implements SmsSender {
  readonly messages: { to: string; text: string }[] = [];
  /** While true, `send` rejects as a refusing gateway would (nothing is captured). */
  failing = false;

  async send(to: string, text: string): Promise<void> {
    if (this.failing) throw new Error('stand-in gateway refused the message');
    this.messages.push({ to, text });
  }

  /** The 6-digit code of the last message sent to `phone`. */
  lastCode(phone: string): string {
    const msg = [...this.messages].reverse().find((m) => m.to === phone);
    const code = msg?.text.match(/\b(\d{6})\b/)?.[1];
    if (!code) throw new Error(`no code was sent to ${phone}`);
    return code;
  }
}
