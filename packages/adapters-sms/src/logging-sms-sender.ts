import type { SmsSender } from '@calsync/domain';

/** The slice of a logger the development sender uses; a pino logger fits. */
export interface InfoLogger {
  info(fields: Record<string, unknown>, message: string): void;
}

/**
 * Development sender (no gateway configured, NODE_ENV not production): logs `to` and `text` at
 * info level instead of sending. It logs the code by design; never use it in production.
 */
export class LoggingSmsSender implements SmsSender {
  constructor(private readonly logger: InfoLogger) {}

  async send(to: string, text: string): Promise<void> {
    this.logger.info({ to, text }, 'development SMS (not sent)');
  }
}
