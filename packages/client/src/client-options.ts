import type { LocalStore } from './store/local-store.js';

/** How to create a client. Only `baseUrl`, `store` and `device` are required. */
export interface SyncClientOptions {
  /** The server's origin (the web client passes VITE_API_URL); '' for the page's own origin. */
  readonly baseUrl: string;
  readonly store: LocalStore;
  /**
   * The device this client signs in as. Without `uid` the client generates one at sign-in and keeps
   * it in the store with the session, so sign-out (which leaves the store empty) forgets it and the
   * next sign-in is a new device. An app that wants one device per installation across sign-outs
   * keeps its own uid outside the store and passes it here (the web client keeps it in localStorage).
   */
  readonly device: { readonly uid?: string; readonly platform: string; readonly name: string; readonly fcmToken?: string | null };
  /** A fetch to use instead of the global one (tests, custom agents). */
  readonly fetch?: typeof fetch;
  /** Wait after a local write before syncing (500 ms). */
  readonly debounceMs?: number;
  /** Sync at least this often while started (60 s). */
  readonly periodicMs?: number;
  /** Per-item errors before an outbox item is parked (5). */
  readonly maxAttempts?: number;
  /** Pull page size (500; the server allows 1..1000). */
  readonly pageSize?: number;
  /** Items per record type in one push (1000, the server's limit). */
  readonly maxBatchItems?: number;
  /**
   * How long a sync round waits, when it lists a conflict another device's push made, for that
   * device to settle it before reporting it (2,000 ms): a conflict that lost nothing is dismissed by
   * the device that made it a moment after its push, and is then never reported.
   */
  readonly settleWaitMs?: number;
  /** Name of the Web Lock and channel tabs share (defaults to the base URL). */
  readonly lockName?: string;
  /** Randomness for backoff jitter (Math.random). */
  readonly random?: () => number;
  /**
   * Listen to the server's data-changed stream while started and sync when another device
   * changed something (true). Without it, only the other triggers run.
   */
  readonly notifications?: boolean;
  /** Wall clock in milliseconds (Date.now). */
  readonly now?: () => number;
}
