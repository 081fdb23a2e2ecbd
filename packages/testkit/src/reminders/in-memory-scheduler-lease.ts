import type { LeaseState, SchedulerLease } from '@calsync/domain';

interface Held {
  holder: string;
  expiresAt: number;
  checkedThrough: string | null;
}

/** `SchedulerLease` of one process (share one instance between the schedulers that compete). */
export class InMemorySchedulerLease implements SchedulerLease {
  readonly #leases = new Map<string, Held>();

  async acquire(name: string, holder: string, now: string, ttlMs: number): Promise<LeaseState> {
    const at = Date.parse(now);
    const lease = this.#leases.get(name);
    if (lease !== undefined && lease.holder !== holder && lease.expiresAt > at) return { held: false, checkedThrough: lease.checkedThrough };
    const checkedThrough = lease?.checkedThrough ?? null;
    this.#leases.set(name, { holder, expiresAt: at + ttlMs, checkedThrough });
    return { held: true, checkedThrough };
  }

  async advance(name: string, holder: string, checkedThrough: string): Promise<boolean> {
    const lease = this.#leases.get(name);
    if (lease === undefined || lease.holder !== holder) return false;
    if (lease.checkedThrough === null || Date.parse(checkedThrough) > Date.parse(lease.checkedThrough)) lease.checkedThrough = new Date(checkedThrough).toISOString();
    return true;
  }

  async release(name: string, holder: string): Promise<void> {
    const lease = this.#leases.get(name);
    if (lease !== undefined && lease.holder === holder) lease.expiresAt = 0;
  }
}
