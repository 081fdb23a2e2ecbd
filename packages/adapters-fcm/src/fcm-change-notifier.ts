import type { ChangeNotifier, DeviceStore, DataChange, UserStore } from '@calsync/domain';
import type { FcmOutcome } from './fcm-client.js';

/** The sending half the notifier needs (an `FcmClient`, or a stand-in in tests). */
export interface FcmSender {
  send(token: string, version: string): Promise<FcmOutcome>;
  stop?(): void;
}

/** Where outcomes are reported (metrics and logs). */
export interface FcmObserver {
  sent(): void;
  failed(reason: string, detail?: string): void;
}

/** Options of `FcmChangeNotifier`. */
export interface FcmChangeNotifierOptions {
  readonly sender: FcmSender;
  readonly devices: Pick<DeviceStore, 'listActiveDevices' | 'clearFcmToken'>;
  /** Read for the user's `syncNotifications` switch (off: no pushes). */
  readonly users: Pick<UserStore, 'findById'>;
  /** Changes of a user within this window become one message per device (NOTIFY_COALESCE_MS). */
  readonly coalesceMs: number;
  readonly observer?: FcmObserver;
}

/** The changes of one user waiting for their window to close. */
interface Window {
  readonly changes: DataChange[];
  readonly timer: NodeJS.Timeout;
}

/**
 * `ChangeNotifier` that pushes the FCM data message to the user's other devices. The first change
 * of a user opens a window of `coalesceMs`; when it closes, each live device with an fcmToken gets
 * one message carrying the newest version among the window's changes it did not make itself (so a
 * burst of pushes is one message per device). A token FCM calls unregistered or invalid is cleared
 * from its device. Everything runs after the push committed and never throws into it.
 */
export class FcmChangeNotifier implements ChangeNotifier {
  readonly #opts: FcmChangeNotifierOptions;
  readonly #windows = new Map<number, Window>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #observer: FcmObserver | undefined;

  constructor(options: FcmChangeNotifierOptions) {
    this.#opts = options;
    this.#observer = options.observer;
  }

  committed(change: DataChange): void {
    const open = this.#windows.get(change.userId);
    if (open) {
      open.changes.push(change);
      return;
    }
    const timer = setTimeout(() => this.#flush(change.userId), this.#opts.coalesceMs);
    timer.unref();
    this.#windows.set(change.userId, { changes: [change], timer });
  }

  /** Sends what is waiting now and waits for messages in flight (shutdown); no retries after this. */
  async close(): Promise<void> {
    for (const [userId, w] of [...this.#windows]) {
      clearTimeout(w.timer);
      this.#flush(userId);
    }
    this.#opts.sender.stop?.();
    await Promise.allSettled([...this.#inFlight]);
  }

  /** Resolves when every window is flushed and every message settled (tests). */
  async idle(): Promise<void> {
    while (this.#windows.size > 0 || this.#inFlight.size > 0) {
      await Promise.allSettled([...this.#inFlight]);
      if (this.#windows.size > 0) await new Promise((r) => setTimeout(r, 5));
    }
  }

  #flush(userId: number): void {
    const w = this.#windows.get(userId);
    if (!w) return;
    this.#windows.delete(userId);
    const run = this.#deliver(userId, w.changes).catch((error: unknown) => {
      this.#observer?.failed('lookup', error instanceof Error ? error.message.slice(0, 200) : 'error');
    });
    this.#inFlight.add(run);
    void run.finally(() => this.#inFlight.delete(run));
  }

  async #deliver(userId: number, changes: readonly DataChange[]): Promise<void> {
    const user = await this.#opts.users.findById(userId);
    if (!user || !user.notificationSettings.syncNotifications) return;
    const devices = await this.#opts.devices.listActiveDevices(userId);
    await Promise.all(
      devices.map(async (device) => {
        const token = device.fcmToken;
        if (token === null || token === '') return;
        let newest: bigint | null = null;
        for (const c of changes) if (c.deviceUid !== device.uid && (newest === null || c.version > newest)) newest = c.version;
        if (newest === null) return;
        const outcome = await this.#opts.sender.send(token, newest.toString());
        if (outcome.ok) {
          this.#observer?.sent();
          return;
        }
        this.#observer?.failed(outcome.reason, outcome.detail);
        if (outcome.clearToken) await this.#opts.devices.clearFcmToken(userId, device.uid, token);
      }),
    );
  }
}
