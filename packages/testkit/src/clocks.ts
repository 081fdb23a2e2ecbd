import type { Clock } from '@calsync/domain';

/** A clock stopped at one instant: results that carry timestamps compare equal across runs. */
export class FixedClock implements Clock {
  readonly #at: Date;
  constructor(at: Date | string = '2025-01-01T00:00:00.000Z') {
    this.#at = new Date(at);
  }
  now(): Date {
    return new Date(this.#at.getTime());
  }
}

/** A clock that moves only when a test advances it (never backwards). */
export class ManualClock implements Clock {
  #ms: number;
  constructor(start: Date | string = '2025-01-01T00:00:00.000Z') {
    this.#ms = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.#ms);
  }
  /** Moves time forward by `ms` milliseconds. */
  advance(ms: number): void {
    if (ms < 0) throw new Error('ManualClock never goes backwards');
    this.#ms += ms;
  }
}
