import type { FastifyBaseLogger } from 'fastify';
import { causeText } from './plugins/error-handling.js';

/** What the service last saw of its database: unknown before the first check. */
export interface DatabaseState {
  readonly status: 'unknown' | 'up' | 'down';
  /** When the state was last checked (ISO 8601), null before the first check. */
  readonly checkedAt: string | null;
  /** When the state last changed (ISO 8601), null before the first check. */
  readonly since: string | null;
  /** The database's error while it is down (one line, no stack). */
  readonly error?: string;
}

/**
 * Runs the readiness check and remembers the outcome: /health/ready asks it, /health and the
 * `calsync_database_up` gauge report what it last saw. A change of state is logged once (warn when
 * the database goes away, with its error; info when it is back), never once per probe.
 */
export class DatabaseStateTracker {
  #state: DatabaseState = { status: 'unknown', checkedAt: null, since: null };

  constructor(
    private readonly check: () => Promise<boolean>,
    private readonly log: FastifyBaseLogger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The last state seen. */
  get state(): DatabaseState {
    return this.#state;
  }

  /** Runs the check now; resolves true when the database answered. Never throws. */
  async probe(): Promise<boolean> {
    let error: string | undefined;
    try {
      if (!(await this.check())) error = 'the database check failed';
    } catch (err) {
      error = causeText(err) ?? 'the database check failed';
    }
    const at = this.now().toISOString();
    const status = error === undefined ? 'up' : 'down';
    const previous = this.#state;
    const changed = previous.status !== status;
    this.#state = { status, checkedAt: at, since: changed ? at : previous.since, ...(error === undefined ? {} : { error }) };
    if (changed && status === 'down') this.log.warn({ database: 'down', error, previously: previous.status }, `database unavailable: ${error}`);
    if (changed && status === 'up' && previous.status === 'down') this.log.info({ database: 'up', downSince: previous.since }, 'database available again');
    return status === 'up';
  }
}
