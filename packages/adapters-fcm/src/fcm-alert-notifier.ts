import type { AlertNotifier, DeviceStore, UserAlert } from '@calsync/domain';
import type { FcmObserver } from './fcm-change-notifier.js';
import type { FcmOutcome } from './fcm-client.js';

/** The sending half the alert notifier needs (an `FcmClient`, or a stand-in in tests). */
export interface FcmAlertSender {
  sendAlert(token: string, alert: UserAlert): Promise<FcmOutcome>;
}

/** Options of `FcmAlertNotifier`. */
export interface FcmAlertNotifierOptions {
  readonly sender: FcmAlertSender;
  readonly devices: Pick<DeviceStore, 'listActiveDevices' | 'clearFcmToken'>;
  /** Told of each message sent or given up on, by kind of alert. */
  readonly observer?: FcmObserver & { alertSent?(kind: UserAlert['kind']): void };
}

/**
 * `AlertNotifier` that sends a visible FCM notification per alert to each live device of the user
 * with an fcmToken (a conflict alert skips the device whose push made it). Unlike the data-changed
 * pushes these are not coalesced: each reminder is its own notification, so two reminders due at
 * once are two notifications. A token FCM calls unregistered or invalid is cleared from its device,
 * as for the data-changed pushes. The caller has already checked the user's switches.
 */
export class FcmAlertNotifier implements AlertNotifier {
  readonly #opts: FcmAlertNotifierOptions;
  readonly #inFlight = new Set<Promise<void>>();

  constructor(options: FcmAlertNotifierOptions) {
    this.#opts = options;
  }

  alerted(alert: UserAlert): void {
    const run = this.#deliver(alert).catch((error: unknown) => {
      this.#opts.observer?.failed('lookup', error instanceof Error ? error.message.slice(0, 200) : 'error');
    });
    this.#inFlight.add(run);
    void run.finally(() => this.#inFlight.delete(run));
  }

  /** Resolves when every message in flight settled (shutdown and tests). */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  async #deliver(alert: UserAlert): Promise<void> {
    const devices = await this.#opts.devices.listActiveDevices(alert.userId);
    const skip = alert.kind === 'conflict' ? alert.deviceUid : null;
    await Promise.all(
      devices.map(async (device) => {
        const token = device.fcmToken;
        if (token === null || token === '' || device.uid === skip) return;
        const outcome = await this.#opts.sender.sendAlert(token, alert);
        if (outcome.ok) {
          this.#opts.observer?.sent();
          this.#opts.observer?.alertSent?.(alert.kind);
          return;
        }
        this.#opts.observer?.failed(outcome.reason, outcome.detail);
        if (outcome.clearToken) await this.#opts.devices.clearFcmToken(alert.userId, device.uid, token);
      }),
    );
  }
}
