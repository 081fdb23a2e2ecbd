import { randomUUID } from 'node:crypto';
import { DomainError, type ChangeFeed, type DataChange, type SessionEnd, type UserAlert } from '@calsync/domain';
import { InMemoryStreamLeases, type StreamLease, type StreamLeases } from './stream-leases.js';

/** Why a stream ended, as its `closed` event says. */
export type CloseReason = 'expired' | 'revoked' | 'shutdown';

/** One event written to a stream. */
export type StreamEvent =
  | { readonly event: 'ready' | 'changed'; readonly version: bigint }
  | { readonly event: 'closed'; readonly reason: CloseReason }
  | { readonly event: 'reminder' | 'conflict'; readonly data: Readonly<Record<string, unknown>> };

/** The `data` of an alert's stream event (docs/protocol.md): the alert without its routing fields. */
export function alertData(alert: UserAlert): Record<string, unknown> {
  if (alert.kind === 'conflict') return { conflictId: alert.conflictId, entityType: alert.entityType, entityUid: alert.entityUid };
  const { kind: _kind, userId: _userId, ...data } = alert;
  return data;
}

/** Who holds a stream. */
export interface StreamOwner {
  readonly userId: number;
  readonly sessionId: string;
  readonly deviceUid: string | null;
  /** Access-token expiry in epoch seconds; the stream closes then. Absent: no expiry. */
  readonly expiresAt?: number | undefined;
}

/** Where a stream's events go (the HTTP response) and how it is ended. */
export interface StreamSink {
  write(event: StreamEvent): void;
  end(): void;
}

/** Counters the hub reports to (metrics). */
export interface StreamHubMetrics {
  /** The number of open streams on this node changed. */
  openStreams(count: number): void;
  /** `count` notifications were written to streams. */
  sent(count: number): void;
}

/** Options of `StreamHub`. */
export interface StreamHubOptions {
  readonly feed: ChangeFeed;
  /** The user's newest change version (the stream's `ready`, and every stream's `changed` after a resync). */
  readonly newestVersion: (userId: number) => Promise<bigint>;
  readonly maxPerUser: number;
  readonly maxConnections: number;
  /** Where the per-user slots are counted: shared by all nodes (Redis) or this node's (default). */
  readonly leases?: StreamLeases;
  readonly metrics?: StreamHubMetrics;
  /** Current time in ms (token expiry timers); Date.now by default. */
  readonly now?: () => number;
  /** Told when a resync's version read fails (the stream then waits for the next change), or the shared slots fail. */
  readonly onError?: (error: unknown) => void;
}

/** An admitted stream: attach it once the response is ready to carry events. */
export interface StreamSlot {
  /** Starts the stream: `ready`, then an immediate `changed` when `lastEventId` is older than newest. */
  attach(sink: StreamSink, newest: bigint, lastEventId: bigint | null): void;
  /** The connection went away (or never started): frees the slot. Idempotent. */
  release(): void;
}

interface OpenStream {
  readonly owner: StreamOwner;
  readonly lease: StreamLease;
  sink: StreamSink | null;
  /** The newest version this stream was told of (null before `ready`). */
  told: bigint | null;
  /** The newest change that arrived before `ready` was written. */
  early: bigint | null;
  expiry: NodeJS.Timeout | null;
}

/** Longest delay setTimeout takes (about 24.8 days); longer expiries are re-armed. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The open notification streams of this node, by user. Listens to the change feed and writes
 * `changed` to every stream of the changed user except the device that made the change; closes
 * streams whose session ended (`revoked`), whose access token expired (`expired`), and all of them
 * on drain (`shutdown`). Admission enforces the per-user and per-node caps.
 */
export class StreamHub {
  readonly #opts: StreamHubOptions;
  readonly #byUser = new Map<number, Set<OpenStream>>();
  readonly #unsubscribe: () => void;
  readonly #leases: StreamLeases;
  readonly #renewal: NodeJS.Timeout | null;
  #count = 0;
  #draining = false;

  constructor(options: StreamHubOptions) {
    this.#opts = options;
    this.#leases = options.leases ?? new InMemoryStreamLeases();
    this.#renewal = this.#leases.renewEveryMs > 0 ? setInterval(() => void this.#renew(), this.#leases.renewEveryMs) : null;
    this.#renewal?.unref();
    this.#unsubscribe = options.feed.subscribe({
      changed: (change) => this.#changed(change),
      sessionEnded: (end) => this.#sessionEnded(end),
      resynced: () => void this.#resync(),
      alerted: (alert) => this.#alerted(alert),
    });
  }

  /** Open streams on this node. */
  get size(): number {
    return this.#count;
  }

  /**
   * Reserves a stream for the owner or refuses: 503 TOO_MANY_STREAMS when this node holds
   * STREAM_MAX_CONNECTIONS (or is draining), 429 RATE_LIMITED when the user holds STREAM_MAX_PER_USER
   * on all nodes together (the leases). When the shared leases fail (Redis down), this node's own
   * count decides, so streams keep working.
   */
  async admit(owner: StreamOwner): Promise<StreamSlot> {
    if (this.#draining) throw new DomainError('NOT_READY', 'the server is shutting down', undefined, 1);
    if (this.#count >= this.#opts.maxConnections) {
      throw new DomainError('TOO_MANY_STREAMS', `this server holds its maximum of ${this.#opts.maxConnections} notification streams; retry later or on another node`, undefined, 5);
    }
    const here = this.#byUser.get(owner.userId)?.size ?? 0;
    const lease: StreamLease = { userId: owner.userId, id: randomUUID() };
    // Counted on this node before the shared check, so concurrent admissions here cannot overshoot either.
    this.#count++;
    let taken: boolean;
    try {
      taken = here < this.#opts.maxPerUser && (await this.#leases.acquire(lease, this.#opts.maxPerUser).catch((error: unknown) => {
        this.#opts.onError?.(error);
        return true;
      }));
    } finally {
      this.#count--;
    }
    if (!taken || this.#draining) {
      void this.#leases.release(lease).catch(() => {});
      if (this.#draining) throw new DomainError('NOT_READY', 'the server is shutting down', undefined, 1);
      throw new DomainError('RATE_LIMITED', `at most ${this.#opts.maxPerUser} notification streams per user; close one first`, { maxPerUser: this.#opts.maxPerUser }, 30);
    }
    const stream: OpenStream = { owner, lease, sink: null, told: null, early: null, expiry: null };
    const mine = this.#byUser.get(owner.userId) ?? new Set<OpenStream>();
    mine.add(stream);
    this.#byUser.set(owner.userId, mine);
    this.#count++;
    this.#opts.metrics?.openStreams(this.#count);
    let released = false;
    return {
      attach: (sink, newest, lastEventId) => {
        if (released) return;
        stream.sink = sink;
        this.#write(stream, { event: 'ready', version: newest });
        stream.told = newest;
        if (stream.early !== null && stream.early > newest) this.#tell(stream, stream.early, false);
        else if (lastEventId !== null && lastEventId < newest) this.#tell(stream, newest, true);
        this.#armExpiry(stream);
      },
      release: () => {
        if (released) return;
        released = true;
        this.#remove(stream);
      },
    };
  }

  /** Ends every stream with `closed: shutdown` and refuses new ones (the server drains). */
  drain(): void {
    this.#draining = true;
    this.#unsubscribe();
    if (this.#renewal !== null) clearInterval(this.#renewal);
    for (const set of [...this.#byUser.values()]) for (const s of [...set]) this.#close(s, 'shutdown');
  }

  #changed(change: DataChange): void {
    for (const s of this.#byUser.get(change.userId) ?? []) {
      if (change.deviceUid !== null && s.owner.deviceUid === change.deviceUid) continue;
      if (s.told === null) {
        if (s.early === null || change.version > s.early) s.early = change.version;
      } else if (change.version > s.told) {
        this.#tell(s, change.version, false);
      }
    }
  }

  /** A reminder goes to every open stream of the user; a conflict to every one but the pushing device's. */
  #alerted(alert: UserAlert): void {
    for (const s of this.#byUser.get(alert.userId) ?? []) {
      if (s.sink === null) continue;
      if (alert.kind === 'conflict' && alert.deviceUid !== null && s.owner.deviceUid === alert.deviceUid) continue;
      this.#write(s, { event: alert.kind, data: alertData(alert) });
    }
  }

  #sessionEnded(end: SessionEnd): void {
    for (const s of [...(this.#byUser.get(end.userId) ?? [])]) {
      const match = 'sessionId' in end ? s.owner.sessionId === end.sessionId : s.owner.deviceUid === end.deviceUid;
      if (match) this.#close(s, 'revoked');
    }
  }

  /** After the feed lost notifications: every stream gets `changed` with its user's newest version. */
  async #resync(): Promise<void> {
    await Promise.all(
      [...this.#byUser.keys()].map(async (userId) => {
        let newest: bigint;
        try {
          newest = await this.#opts.newestVersion(userId);
        } catch (error) {
          this.#opts.onError?.(error);
          return;
        }
        for (const s of this.#byUser.get(userId) ?? []) {
          if (s.told === null) s.early = s.early === null || newest > s.early ? newest : s.early;
          else this.#tell(s, newest, true);
        }
      }),
    );
  }

  #tell(s: OpenStream, version: bigint, always: boolean): void {
    if (!always && s.told !== null && version <= s.told) return;
    this.#write(s, { event: 'changed', version });
    if (s.told === null || version > s.told) s.told = version;
    this.#opts.metrics?.sent(1);
  }

  #armExpiry(s: OpenStream): void {
    const expiresAt = s.owner.expiresAt;
    if (expiresAt === undefined || s.sink === null) return;
    const left = expiresAt * 1000 - (this.#opts.now ?? Date.now)();
    if (left <= 0) {
      this.#close(s, 'expired');
      return;
    }
    s.expiry = setTimeout(() => (left > MAX_TIMER_MS ? this.#armExpiry(s) : this.#close(s, 'expired')), Math.min(left, MAX_TIMER_MS));
    s.expiry.unref();
  }

  #close(s: OpenStream, reason: CloseReason): void {
    const sink = s.sink;
    this.#remove(s);
    if (sink === null) return;
    this.#write(s, { event: 'closed', reason }, sink);
    sink.end();
  }

  #write(s: OpenStream, event: StreamEvent, sink = s.sink): void {
    try {
      sink?.write(event);
    } catch (error) {
      // A connection that broke mid-write is cleaned up by its close handler.
      this.#opts.onError?.(error);
    }
  }

  #remove(s: OpenStream): void {
    const set = this.#byUser.get(s.owner.userId);
    if (!set?.delete(s)) return;
    if (set.size === 0) this.#byUser.delete(s.owner.userId);
    if (s.expiry !== null) clearTimeout(s.expiry);
    s.sink = null;
    this.#count--;
    this.#opts.metrics?.openStreams(this.#count);
    void this.#leases.release(s.lease).catch((error: unknown) => this.#opts.onError?.(error));
  }

  /** Keeps this node's leases alive in the shared store. */
  async #renew(): Promise<void> {
    const leases = [...this.#byUser.values()].flatMap((set) => [...set].map((s) => s.lease));
    await this.#leases.renew(leases).catch((error: unknown) => this.#opts.onError?.(error));
  }
}
