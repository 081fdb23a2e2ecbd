/** The last failure the client met, in a form a UI can show. */
export interface SyncErrorInfo {
  /** `network`, `server`, `rate-limited`, `too-large`, `signed-out`, `rejected`, or `local`. */
  readonly kind: string;
  readonly code: string;
  readonly message: string;
}

/** What a sync indicator shows. */
export interface SyncStatus {
  readonly signedIn: boolean;
  /** False after a request found no network (or the browser says offline); true after an answer. */
  readonly online: boolean;
  readonly syncing: boolean;
  /** Outbox items not parked. */
  readonly pending: number;
  /** Parked outbox items (see `outbox.failed()`). */
  readonly failed: number;
  /** ISO 8601 time of the last complete round. */
  readonly lastSyncAt: string | null;
  readonly lastError: SyncErrorInfo | null;
}

/** Holds the status and tells listeners when it changed. */
export class StatusCell {
  #value: SyncStatus;
  readonly #listeners = new Set<(s: SyncStatus) => void>();

  constructor(initial: SyncStatus) {
    this.#value = initial;
  }

  get value(): SyncStatus {
    return this.#value;
  }

  /** Merges `patch`; listeners hear of it only when something changed. */
  update(patch: Partial<SyncStatus>): void {
    const next = { ...this.#value, ...patch };
    const changed = (Object.keys(next) as (keyof SyncStatus)[]).some((k) => JSON.stringify(next[k]) !== JSON.stringify(this.#value[k]));
    if (!changed) return;
    this.#value = next;
    for (const l of [...this.#listeners]) l(next);
  }

  subscribe(listener: (s: SyncStatus) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
