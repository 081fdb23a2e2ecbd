import type { Clock } from '@calsync/domain';

/**
 * The wall clock for production. Never goes backwards: if the system clock steps back, it keeps
 * answering the last instant it gave until real time catches up.
 */
export class SystemClock implements Clock {
  private last = 0;

  now(): Date {
    const t = Math.max(Date.now(), this.last);
    this.last = t;
    return new Date(t);
  }
}
