import type { ReminderEventWire } from '@calsync/wire';
import type { AuthModule } from '../auth.js';
import { META, type LocalState } from '../engine/local-state.js';
import type { SyncReason } from '../engine/sync-runner.js';
import { notificationStreamTrigger } from '../notify/notification-stream.js';
import type { TriggerSource } from '../triggers.js';

/** What the notification part needs from the rest of the client. */
export interface NotificationsInput {
  readonly baseUrl: string;
  readonly fetch: typeof fetch;
  readonly auth: AuthModule;
  readonly state: LocalState;
  readonly random: () => number;
  readonly now: () => number;
  readonly requestRound: (reason: SyncReason) => void;
}

/**
 * The notification stream as a trigger source (a change on the server asks for a round), and what
 * else it carries: due reminders go to `client.reminders.onDue` listeners; another device's
 * conflict marks the conflict feed due, so the next round lists it for `conflicts.subscribe`.
 */
export function notificationsPart(input: NotificationsInput): { readonly trigger: TriggerSource; onDue(listener: (due: ReminderEventWire) => void): () => void } {
  const dueListeners = new Set<(due: ReminderEventWire) => void>();
  const trigger = notificationStreamTrigger({
    baseUrl: input.baseUrl,
    fetch: input.fetch,
    tokens: input.auth,
    random: input.random,
    now: input.now,
    onReminder: (due) => {
      for (const l of [...dueListeners]) l(due);
    },
    onConflict: () => void input.state.commit({ putMeta: { [META.conflictsDue]: true } }).then(() => input.requestRound('notification'), () => undefined),
  });
  return {
    trigger,
    onDue(listener) {
      dueListeners.add(listener);
      return () => dueListeners.delete(listener);
    },
  };
}
