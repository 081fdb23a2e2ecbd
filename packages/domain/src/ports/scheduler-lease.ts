/** The state of a lease as its holder sees it. */
export interface LeaseState {
  /** True when the caller holds the lease now. */
  readonly held: boolean;
  /** The instant up to which the holders of this lease have finished their work (ISO), null before the first. */
  readonly checkedThrough: string | null;
}

/**
 * A named lease that at most one holder has at a time, on every node that shares the database: the
 * reminder scheduler runs where it is held. Guarantees (checked by the contract suite on every adapter):
 * - `acquire` succeeds when the lease is free, expired at `now`, or already the caller's, and then
 *   holds it until `now + ttlMs`; it fails while another holder's lease is unexpired;
 * - `advance` moves `checkedThrough` only for the current holder, and never backwards;
 * - `release` frees the lease only when the caller holds it.
 */
export interface SchedulerLease {
  acquire(name: string, holder: string, now: string, ttlMs: number): Promise<LeaseState>;
  advance(name: string, holder: string, checkedThrough: string): Promise<boolean>;
  release(name: string, holder: string): Promise<void>;
}
