import { backoffMs, type ChangeFeed, type ChangeFeedListener, type SessionEnd } from '@calsync/domain';
import { CHANNEL_SQL, encodeSessionEnd } from './change-payload.js';
import { ListenerSet } from './listener-set.js';

/** The structural subset of a node-postgres `Client` the feed uses (one dedicated connection). */
export interface ListenClient {
  connect(): Promise<unknown>;
  query(text: string): Promise<{ rows: Record<string, unknown>[] }>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string | undefined }) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  end(): Promise<unknown>;
}

/** A change feed that can be stopped (the process owns its LISTEN connection). */
export interface ClosableChangeFeed extends ChangeFeed {
  close(): Promise<void>;
}

/** Options of `PostgresChangeFeed`. */
export interface PostgresChangeFeedOptions {
  /** Makes a new, unconnected client for the LISTEN connection (one at a time). */
  readonly connect: () => ListenClient;
  /** Sends one payload with `pg_notify` on the feed's channel (through the pool). */
  readonly notify: (payload: string) => Promise<void>;
  /** First and largest wait between reconnection attempts (doubling, with jitter). */
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** How often the idle LISTEN connection is checked with `select 1` (a half-open socket says nothing). */
  readonly pingMs?: number;
  /** Told when the connection is lost (with the error) and when it is listening again. */
  readonly onState?: (state: 'listening' | 'lost', error?: unknown) => void;
}

/**
 * `ChangeFeed` over PostgreSQL LISTEN/NOTIFY: one dedicated connection per node listens on the
 * schema's channel. When it is lost (server restart, `pg_terminate_backend`, a failed ping) the
 * feed reconnects with exponential backoff and jitter, and once it listens again it tells every
 * subscriber `resynced()`, since notifications sent meanwhile are gone.
 */
export class PostgresChangeFeed implements ClosableChangeFeed {
  readonly #opts: Required<Omit<PostgresChangeFeedOptions, 'onState'>> & Pick<PostgresChangeFeedOptions, 'onState'>;
  readonly #listeners = new ListenerSet();
  #client: ListenClient | null = null;
  #ping: NodeJS.Timeout | null = null;
  #closed = false;
  #everListened = false;
  #running: Promise<void> | null = null;

  constructor(options: PostgresChangeFeedOptions) {
    this.#opts = { minBackoffMs: 100, maxBackoffMs: 10_000, pingMs: 30_000, ...options };
  }

  /** Connects and listens; resolves once the first LISTEN is in place (retrying until then). */
  start(): Promise<void> {
    this.#running ??= this.#connectLoop();
    return this.#running;
  }

  subscribe(listener: ChangeFeedListener): () => void {
    return this.#listeners.add(listener);
  }

  async announceSessionEnd(end: SessionEnd): Promise<void> {
    await this.#opts.notify(encodeSessionEnd(end));
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopPing();
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => {});
  }

  async #connectLoop(): Promise<void> {
    for (let attempt = 0; !this.#closed; attempt++) {
      const client = this.#opts.connect();
      try {
        await this.#listenOn(client);
        return;
      } catch (error) {
        void client.end().catch(() => {});
        this.#opts.onState?.('lost', error);
        const wait = backoffMs(attempt, { baseMs: this.#opts.minBackoffMs, maxMs: this.#opts.maxBackoffMs, jitter: 'equal' });
        await new Promise((resolve) => setTimeout(resolve, wait).unref());
      }
    }
  }

  async #listenOn(client: ListenClient): Promise<void> {
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client, new Error('LISTEN connection ended')));
    let channel: string | null = null;
    client.on('notification', (message) => {
      if (message.channel === channel && this.#client === client) this.#listeners.dispatch(message.payload ?? '');
    });
    await client.connect();
    const { rows } = await client.query(`select ${CHANNEL_SQL} as channel`);
    channel = String(rows[0]?.channel);
    await client.query(`listen "${channel.replaceAll('"', '""')}"`);
    if (this.#closed) {
      await client.end();
      return;
    }
    this.#client = client;
    this.#startPing(client);
    this.#opts.onState?.('listening');
    // Anything committed while no connection listened was not heard: subscribers re-read.
    if (this.#everListened) this.#listeners.resynced();
    this.#everListened = true;
  }

  #lost(client: ListenClient, error: unknown): void {
    if (this.#client !== client) return;
    this.#client = null;
    this.#stopPing();
    void client.end().catch(() => {});
    if (this.#closed) return;
    this.#opts.onState?.('lost', error);
    this.#running = this.#connectLoop();
  }

  #startPing(client: ListenClient): void {
    this.#ping = setInterval(() => {
      let answered = false;
      const timeout = setTimeout(() => {
        if (!answered) this.#lost(client, new Error('LISTEN connection did not answer a ping'));
      }, this.#opts.pingMs / 2).unref();
      client.query('select 1').then(
        () => {
          answered = true;
          clearTimeout(timeout);
        },
        (error: unknown) => {
          answered = true;
          clearTimeout(timeout);
          this.#lost(client, error);
        },
      );
    }, this.#opts.pingMs);
    this.#ping.unref();
  }

  #stopPing(): void {
    if (this.#ping !== null) clearInterval(this.#ping);
    this.#ping = null;
  }
}
