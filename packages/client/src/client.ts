import { AuthModule } from './auth.js';
import type { SyncClientOptions } from './client-options.js';
import { createCollection } from './collection.js';
import { META, LocalState } from './engine/local-state.js';
import { planRecovery } from './engine/outbox.js';
import { runRound } from './engine/sync-round.js';
import { SyncRunner } from './engine/sync-runner.js';
import { ApiError } from './http/api-error.js';
import { CalsyncApi } from './http/api.js';
import { Transport } from './http/transport.js';
import { importIcs } from './import-ics.js';
import { interopOperations } from './interop.js';
import { notificationStreamTrigger } from './notify/notification-stream.js';
import { accountParts } from './parts/account.js';
import { conflictsPart } from './parts/conflicts.js';
import { outboxParts } from './parts/outbox.js';
import { statusAfterRound, statusOfState } from './parts/status.js';
import type { CalendarFields, EventFields, ReminderFields, TaskFields } from './records.js';
import { localOccurrences, occurrenceOperations } from './series.js';
import { StatusCell } from './status.js';
import type { SyncClient } from './sync-client.js';
import { TabCoordinator } from './tab-coordinator.js';
import { browserOnline, debounce, onlineTrigger, periodicTrigger, visibleTrigger, type TriggerSource } from './triggers.js';
import { uuidv7 } from './uid.js';
import type { ReminderEventWire as WireReminderEvent } from '@calsync/wire';

export type { FailedItem, PendingItem, SyncClient } from './sync-client.js';

/** Creates a client over `options.store`; call `open()` before anything else. */
export function createSyncClient(options: SyncClientOptions): SyncClient {
  const fetchFn = options.fetch ?? ((input: Parameters<typeof fetch>[0], init?: RequestInit) => globalThis.fetch(input, init));
  const now = options.now ?? (() => Date.now());
  const random = options.random ?? Math.random;
  const debounceMs = options.debounceMs ?? 500;
  const periodicMs = options.periodicMs ?? 60_000;
  const maxAttempts = options.maxAttempts ?? 5;
  const pageSize = options.pageSize ?? 500;
  const maxBatchItems = options.maxBatchItems ?? 1000;
  const state = new LocalState(options.store);
  const tabs = new TabCoordinator(options.lockName ?? (options.baseUrl || 'default'));
  const status = new StatusCell({ signedIn: false, online: browserOnline(), syncing: false, pending: 0, failed: 0, lastSyncAt: null, lastError: null });
  const triggerSources = new Set<TriggerSource>([onlineTrigger, visibleTrigger, periodicTrigger(periodicMs)]);
  const activeTriggers = new Map<TriggerSource, () => void>();
  const dueListeners = new Set<(due: WireReminderEvent) => void>();
  let opened = false;
  let started = false;

  // The uid the next sign-in names: the app's own, else the one stored with the session, else a
  // fresh one (stored by the sign-in that uses it, so a signed-out store holds nothing).
  let freshUid: string | undefined;
  const deviceUid = (): string => {
    if (!opened) throw new Error('call client.open() first');
    return options.device.uid ?? state.text(META.deviceUid) ?? (freshUid ??= uuidv7(now()));
  };
  const auth: AuthModule = new AuthModule({
    state,
    api: () => api,
    device: () => ({ uid: deviceUid(), platform: options.device.platform, name: options.device.name, ...(options.device.fcmToken !== undefined ? { fcmToken: options.device.fcmToken } : {}) }),
    signedIn: async () => {
      refreshStatus();
      await runner.sync().catch(() => undefined);
    },
    signedOut: (error) => {
      if (!error) {
        freshUid = undefined;
        tabs.announce('signed-out');
      }
      status.update({ signedIn: false, ...(error ? { lastError: { kind: error.kind, code: error.code, message: error.message } } : { lastError: null }) });
      refreshStatus();
    },
  });
  const transport = new Transport(options.baseUrl.replace(/\/$/, ''), fetchFn, auth, now);
  const api = new CalsyncApi(transport);
  const interop = interopOperations(transport);
  if (options.notifications ?? true) {
    triggerSources.add(
      notificationStreamTrigger({
        baseUrl: options.baseUrl.replace(/\/$/, ''),
        fetch: fetchFn,
        tokens: auth,
        random,
        now,
        onReminder: (due) => {
          for (const l of [...dueListeners]) l(due);
        },
        // Another device's push made a conflict: the next round lists it and hands it to conflicts.subscribe.
        onConflict: () => void state.commit({ putMeta: { [META.conflictsDue]: true } }).then(() => runner.request('notification'), () => undefined),
      }),
    );
  }

  const runner = new SyncRunner({
    round: () =>
      runRound({
        state, api, pageSize, maxAttempts, maxBatchItems, now,
        onConflicts: (c) => conflicts.emit(c),
      }),
    exclusive: (fn) => fn(),
    mayRun: () => opened && tabs.leader && auth.accessToken() !== undefined,
    hasPushable: () => state.outbox.some((i) => i.state === 'pending' && i.attempts === 0 && !i.waitForPull),
    random,
    onState: ({ syncing, error, ok }) => {
      if (syncing) {
        status.update({ syncing: true });
        return;
      }
      status.update(statusAfterRound(status.value, error, ok));
      refreshStatus();
      if (ok) tabs.announce('synced');
    },
    setTimer: (fn, ms) => setTimeout(fn, ms),
    clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  });

  function refreshStatus(): void {
    status.update(statusOfState(state, auth.accessToken() !== undefined));
  }
  state.onChange(refreshStatus);
  const writeDebounce = debounce(() => runner.request('write'), debounceMs);
  const wrote = (): void => {
    tabs.announce('write');
    if (started) writeDebounce.call();
  };
  const ready = (): void => {
    if (!opened) throw new Error('call client.open() first');
  };
  // Another tab changed the shared store: read it again. Its write is in the store (it announces
  // after the commit), so the leader then schedules its debounced round, as for a write of its own.
  const unwatchTabs = tabs.onRemoteChange((change) => {
    void state.reload().then(() => {
      if (change === 'write' && started && tabs.leader) writeDebounce.call();
    }, () => undefined);
  });

  const eventCollection = createCollection<EventFields>('events', state, wrote, ready);
  const events = Object.assign(eventCollection, occurrenceOperations(state, eventCollection, () => uuidv7(now())));
  const calendars = createCollection<CalendarFields>('calendars', state, wrote, ready);
  const tasks = createCollection<TaskFields>('tasks', state, wrote, ready);
  const reminders = Object.assign(createCollection<ReminderFields>('reminders', state, wrote, ready), {
    onDue(listener: (due: WireReminderEvent) => void): () => void {
      dueListeners.add(listener);
      return () => dueListeners.delete(listener);
    },
  });

  const conflicts = conflictsPart(state, api, () => runner.request('manual'));

  const activate = (source: TriggerSource): void => {
    activeTriggers.set(source, source((reason) => runner.request(reason)));
  };

  return {
    async open() {
      if (opened) return;
      await options.store.open();
      await state.reload();
      const recovery = planRecovery(state);
      if (recovery.putOutbox?.length) await state.commit(recovery);
      opened = true;
      refreshStatus();
    },
    auth,
    calendars,
    events,
    occurrences: (query) => {
      ready();
      return localOccurrences(state, query);
    },
    tasks,
    reminders,
    feeds: interop.feeds,
    appPasswords: interop.appPasswords,
    importIcs: (text, options) => {
      ready();
      return importIcs({ calendars, events, tasks, reminders }, text, options);
    },
    sync() {
      ready();
      if (auth.accessToken() === undefined) return Promise.reject(new ApiError('signed-out', 401, 'UNAUTHORIZED', 'not signed in'));
      return runner.sync();
    },
    start() {
      ready();
      if (started) return;
      started = true;
      runner.start();
      tabs.compete(() => {
        if (!started) return;
        for (const source of triggerSources) activate(source);
        runner.request('manual');
      });
    },
    stop() {
      if (!started) return;
      started = false;
      writeDebounce.cancel();
      runner.stop();
      for (const cleanup of activeTriggers.values()) cleanup();
      activeTriggers.clear();
      tabs.resign();
    },
    get status() {
      return status.value;
    },
    onStatus: (listener) => status.subscribe(listener),
    conflicts: conflicts.facade,
    ...accountParts({ state, api, auth, appDeviceUid: options.device.uid, ready }),
    ...outboxParts(state, () => runner.request('manual')),
    requestSync: (reason = 'notification') => runner.request(reason),
    addTrigger(source) {
      triggerSources.add(source);
      if (started && tabs.leader) activate(source);
      return () => {
        triggerSources.delete(source);
        activeTriggers.get(source)?.();
        activeTriggers.delete(source);
      };
    },
    async close() {
      this.stop();
      unwatchTabs();
      tabs.close();
      await runner.sync().catch(() => undefined).then(() => undefined, () => undefined);
      await state.flushed();
      await options.store.close();
      opened = false;
    },
  };
}
