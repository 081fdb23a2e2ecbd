import type { ChangeFeedListener, SessionEnd } from '@calsync/domain';
import { CHANNEL_SQL, encodeSessionEnd } from './change-payload.js';
import { ListenerSet } from './listener-set.js';
import type { ClosableChangeFeed } from './postgres-change-feed.js';

/** The structural subset of a PGlite engine the feed uses. */
export interface PGliteListenEngine {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
}

/**
 * `ChangeFeed` of an embedded PGlite: the one in-process engine delivers its own NOTIFYs to its
 * LISTEN callback after the notifying transaction commits (never after a rollback), so the single
 * node gets the same semantics as with PostgreSQL; the connection cannot be lost, so there is no
 * resync. `exclusive` runs engine calls under the Kysely driver's lock, so a LISTEN never lands
 * inside another caller's open transaction.
 */
export class PGliteChangeFeed implements ClosableChangeFeed {
  readonly #listeners = new ListenerSet();
  #unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly engine: PGliteListenEngine,
    private readonly exclusive: <T>(work: () => Promise<T>) => Promise<T>,
  ) {}

  async start(): Promise<void> {
    if (this.#unlisten) return;
    this.#unlisten = await this.exclusive(async () => {
      const { rows } = await this.engine.query<{ channel: string }>(`select ${CHANNEL_SQL} as channel`);
      return this.engine.listen(String(rows[0]?.channel), (payload) => this.#listeners.dispatch(payload));
    });
  }

  subscribe(listener: ChangeFeedListener): () => void {
    return this.#listeners.add(listener);
  }

  async announceSessionEnd(end: SessionEnd): Promise<void> {
    await this.exclusive(() => this.engine.query(`select pg_notify(${CHANNEL_SQL}, $1)`, [encodeSessionEnd(end)]));
  }

  async close(): Promise<void> {
    const unlisten = this.#unlisten;
    this.#unlisten = null;
    if (unlisten) await this.exclusive(() => unlisten()).catch(() => {});
  }
}
