import type { Clock } from '../ports/clock.js';
import { RETENTION_KINDS, type RetentionKind, type RetentionStore } from '../ports/retention-store.js';

/** How long each kind of data is kept, in milliseconds (RECEIPT_RETENTION, TOMBSTONE_RETENTION, CONFLICT_RETENTION). */
export interface RetentionPolicy {
  readonly receiptsMs: number;
  readonly tombstonesMs: number;
  readonly conflictsMs: number;
}

/** The per-phone send log is counted over the last hour (the hourly cap of codes): older entries count for nothing. */
const SEND_LOG_MS = 3_600_000;

/** Rows one purge statement (one transaction) may remove: short enough never to hold a user's lock for long. */
export const RETENTION_BATCH = 500;

/** Told about each run: rows removed per kind and batch, the horizons used, and how the run ended. */
export interface RetentionObserver {
  removed(kind: RetentionKind, rows: number): void;
  horizon(kind: RetentionKind, before: Date): void;
  finished(outcome: 'ran' | 'skipped' | 'failed', at: Date): void;
}

/** What one run removed, per kind; null when another node was running the job. */
export type RetentionReport = Readonly<Record<RetentionKind, number>> | null;

/**
 * The maintenance job (docs/protocol.md, "Retention"; ops/README.md): removes what has outlived its
 * retention, kind by kind, in batches of `batch` rows, while holding the store's maintenance lock
 * (one node at a time), then lets the store reclaim the space.
 */
export class RetentionJob {
  readonly #store: RetentionStore;
  readonly #clock: Clock;
  readonly #policy: RetentionPolicy;
  readonly #batch: number;
  readonly #observer: RetentionObserver | undefined;

  constructor(deps: { store: RetentionStore; clock: Clock; policy: RetentionPolicy; batch?: number; observer?: RetentionObserver }) {
    this.#store = deps.store;
    this.#clock = deps.clock;
    this.#policy = deps.policy;
    this.#batch = deps.batch ?? RETENTION_BATCH;
    this.#observer = deps.observer;
  }

  /** The instant before which each kind goes, for a run at `now`. */
  horizons(now: Date): Readonly<Record<RetentionKind, Date>> {
    const ago = (ms: number) => new Date(now.getTime() - ms);
    return {
      receipts: ago(this.#policy.receiptsMs),
      tombstones: ago(this.#policy.tombstonesMs),
      conflicts: ago(this.#policy.conflictsMs),
      sessions: now,
      codes: now,
      codeSends: ago(SEND_LOG_MS),
      renders: now,
    };
  }

  async runOnce(): Promise<RetentionReport> {
    try {
      const outcome = await this.#store.exclusively(() => this.#run());
      this.#observer?.finished(outcome.ran ? 'ran' : 'skipped', this.#clock.now());
      return outcome.ran ? outcome.value : null;
    } catch (error) {
      this.#observer?.finished('failed', this.#clock.now());
      throw error;
    }
  }

  async #run(): Promise<Record<RetentionKind, number>> {
    const horizons = this.horizons(this.#clock.now());
    const report = Object.fromEntries(RETENTION_KINDS.map((kind) => [kind, 0])) as Record<RetentionKind, number>;
    for (const kind of RETENTION_KINDS) {
      const before = horizons[kind];
      this.#observer?.horizon(kind, before);
      for (;;) {
        const n = await this.#store.purge(kind, before.toISOString(), this.#batch);
        if (n > 0) this.#observer?.removed(kind, n);
        report[kind] += n;
        if (n < this.#batch) break;
      }
    }
    await this.#store.reclaim(RETENTION_KINDS.filter((kind) => report[kind] > 0));
    return report;
  }
}
