import { ApiError } from '../http/api-error.js';
import { backoffDelay } from './backoff.js';

/** Why a round started; shown in nothing but useful when debugging. */
export type SyncReason = 'manual' | 'write' | 'online' | 'visible' | 'timer' | 'notification' | 'retry' | 'sign-in' | 'again';

/** The runner's view of the world. */
export interface RunnerDeps {
  /** One round; throws what failed. */
  readonly round: () => Promise<void>;
  /** Runs `fn` while holding the device-wide sync lock (one tab at a time). */
  readonly exclusive: <T>(fn: () => Promise<T>) => Promise<T>;
  /** False while signed out or while another tab leads: rounds are skipped. */
  readonly mayRun: () => boolean;
  /** True when fresh items (never attempted) wait to be pushed: a started loop runs again at once. */
  readonly hasPushable: () => boolean;
  readonly random: () => number;
  readonly onState: (state: { syncing: boolean; error: ApiError | Error | null; ok: boolean }) => void;
  readonly setTimer: (fn: () => void, ms: number) => unknown;
  readonly clearTimer: (handle: unknown) => void;
}

/**
 * Runs sync rounds one at a time. `sync()` joins a running round; `request()` (the triggers)
 * starts one, or asks for another right after the running one, so no trigger is lost. While
 * started, a failed round is retried after Retry-After (429) or a jittered backoff up to 60 s;
 * a signed-out session is not retried.
 */
export class SyncRunner {
  #running: Promise<void> | null = null;
  #again = false;
  #started = false;
  #failures = 0;
  #retryTimer: unknown = null;
  #waitingForServer = false;

  constructor(private readonly deps: RunnerDeps) {}

  /** True while a round runs. */
  get syncing(): boolean {
    return this.#running !== null;
  }

  /** One round now, or the running one; rejects with what made it fail. */
  sync(): Promise<void> {
    if (this.#running) return this.#running;
    const run = this.#run();
    this.#running = run;
    void run.then(
      () => this.#finished(null),
      (error: unknown) => this.#finished(error instanceof Error ? error : new Error(String(error))),
    );
    return run;
  }

  /** A trigger fired: sync now, or once more after the running round. Never rejects. */
  request(reason: SyncReason): void {
    if (!this.deps.mayRun()) return;
    // While a retry waits, triggers wait with it: a 429's Retry-After always, a backoff unless the
    // network just came back.
    if (this.#retryTimer !== null && reason !== 'retry' && (this.#waitingForServer || reason !== 'online')) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.sync().catch(() => undefined);
  }

  /** True while a retry is scheduled (after a failure). */
  get retrying(): boolean {
    return this.#retryTimer !== null;
  }

  /** Enables automatic retries. */
  start(): void {
    this.#started = true;
  }

  /** Disables automatic retries (a running round finishes). */
  stop(): void {
    this.#started = false;
    if (this.#retryTimer !== null) this.deps.clearTimer(this.#retryTimer);
    this.#retryTimer = null;
  }

  async #run(): Promise<void> {
    this.deps.onState({ syncing: true, error: null, ok: false });
    await this.deps.exclusive(() => this.deps.round());
  }

  #finished(error: Error | null): void {
    this.#running = null;
    if (error === null) {
      this.#failures = 0;
      if (this.#retryTimer !== null) this.deps.clearTimer(this.#retryTimer);
      this.#retryTimer = null;
      this.deps.onState({ syncing: false, error: null, ok: true });
      if (this.#again || (this.#started && this.deps.hasPushable())) {
        this.#again = false;
        this.request('again');
      }
      return;
    }
    this.#failures += 1;
    this.#again = false;
    this.deps.onState({ syncing: false, error, ok: false });
    const signedOut = error instanceof ApiError && error.kind === 'signed-out';
    if (!this.#started || signedOut) return;
    const wait = error instanceof ApiError && error.retryAfterMs !== null ? error.retryAfterMs : backoffDelay(this.#failures, this.deps.random);
    if (this.#retryTimer !== null) this.deps.clearTimer(this.#retryTimer);
    this.#waitingForServer = error instanceof ApiError && error.kind === 'rate-limited';
    this.#retryTimer = this.deps.setTimer(() => {
      this.#retryTimer = null;
      this.request('retry');
    }, wait);
  }
}
