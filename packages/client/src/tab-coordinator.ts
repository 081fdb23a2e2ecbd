/**
 * Why a tab says the shared store changed: a local write (the leader schedules a sync for it), a
 * finished sync round, or a sign-out. Every kind makes the other tabs reload the store.
 */
export type TabChange = 'write' | 'synced' | 'signed-out';

const isTabChange = (v: unknown): v is TabChange => v === 'write' || v === 'synced' || v === 'signed-out';

/** The Web Locks API, as far as the client uses it. */
interface LockManagerLike {
  request(name: string, options: { signal?: AbortSignal }, callback: () => Promise<void>): Promise<void>;
}

/**
 * Makes one browser tab the syncing one. Every tab competes for a Web Lock named after the
 * store; the tab that holds it runs the sync loop, the others only read and write locally and are
 * told (BroadcastChannel) when the shared store changed, so they reload it; a write in another
 * tab makes the leader schedule its debounced sync round as its own write would. Where Web Locks do
 * not exist (Node, old browsers) the single client simply leads.
 */
export class TabCoordinator {
  #leader: boolean;
  readonly #locks: LockManagerLike | undefined;
  readonly #channel: InstanceType<typeof BroadcastChannel> | undefined;
  #abort: AbortController | null = null;
  #release: (() => void) | null = null;
  #closed = false;

  constructor(private readonly name: string) {
    const nav = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator;
    this.#locks = nav?.locks;
    this.#leader = this.#locks === undefined;
    this.#channel = this.#locks !== undefined && typeof BroadcastChannel === 'function' ? new BroadcastChannel(`calsync:${name}`) : undefined;
  }

  /** True when this tab (or this lone client) may sync. */
  get leader(): boolean {
    return this.#leader;
  }

  /** Starts competing for leadership; `onLead` runs once this tab leads. */
  compete(onLead: () => void): void {
    if (!this.#locks) {
      onLead();
      return;
    }
    if (this.#abort) return;
    const abort = new AbortController();
    this.#abort = abort;
    this.#locks
      .request(`calsync-sync:${this.name}`, { signal: abort.signal }, () => {
        this.#leader = true;
        onLead();
        return new Promise<void>((resolve) => {
          this.#release = resolve;
        });
      })
      .catch(() => undefined);
  }

  /** Gives leadership up (stop, close). */
  resign(): void {
    this.#abort?.abort();
    this.#abort = null;
    this.#release?.();
    this.#release = null;
    if (this.#locks) this.#leader = false;
  }

  /** Tells the other tabs that the shared store changed, and why. */
  announce(change: TabChange): void {
    // A round that ends after close() (close waits for it) has no one left to tell.
    if (!this.#closed) this.#channel?.postMessage(change);
  }

  /** Calls `fn` when another tab changed the shared store; returns the unsubscribe function. */
  onRemoteChange(fn: (change: TabChange) => void): () => void {
    const channel = this.#channel;
    if (!channel) return () => undefined;
    const listener = (event: MessageEvent): void => fn(isTabChange(event.data) ? event.data : 'synced');
    channel.addEventListener('message', listener as EventListener);
    return () => channel.removeEventListener('message', listener as EventListener);
  }

  /** Closes the channel. */
  close(): void {
    this.resign();
    this.#closed = true;
    this.#channel?.close();
  }
}
