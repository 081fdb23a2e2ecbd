import type { ChangeFeed, ChangeFeedListener, DataChange, SessionEnd, UserAlert } from '@calsync/domain';

/**
 * `ChangeFeed` of one process: `InMemorySyncStore` publishes a unit's announced changes when the
 * unit commits. Delivery is synchronous, so order is commit order. `resync()` lets tests play a
 * lost connection.
 */
export class InMemoryChangeFeed implements ChangeFeed {
  readonly #listeners = new Set<ChangeFeedListener>();

  subscribe(listener: ChangeFeedListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async announceSessionEnd(end: SessionEnd): Promise<void> {
    for (const l of [...this.#listeners]) l.sessionEnded(end);
  }

  /** Delivers an alert to every subscriber that listens for alerts (called once what made it committed). */
  publishAlert(alert: UserAlert): void {
    for (const l of [...this.#listeners]) l.alerted?.(alert);
  }

  /** Delivers committed changes (called by the store after a unit of work committed). */
  publish(changes: readonly DataChange[]): void {
    for (const change of changes) for (const l of [...this.#listeners]) l.changed(change);
  }

  /** Tells every subscriber that notifications may have been lost. */
  resync(): void {
    for (const l of [...this.#listeners]) l.resynced();
  }
}
