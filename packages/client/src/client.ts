import type { SyncClientOptions } from './client-options.js';
import { createCollection } from './collection.js';
import { LocalState } from './engine/local-state.js';
import { planRecovery } from './engine/outbox.js';
import { runRound } from './engine/sync-round.js';
import { ApiError } from './http/api-error.js';
import { importIcs } from './import-ics.js';
import { accountParts } from './parts/account.js';
import { conflictsPart } from './parts/conflicts.js';
import { notificationsPart } from './parts/notifications.js';
import { outboxParts } from './parts/outbox.js';
import { schedulingPart } from './parts/scheduling.js';
import { sessionPart } from './parts/session.js';
import { statusOfState } from './parts/status.js';
import type { CalendarFields, EventFields, ReminderFields, TaskFields } from './records.js';
import { localOccurrences, occurrenceOperations } from './series.js';
import { StatusCell } from './status.js';
import type { SyncClient } from './sync-client.js';
import { browserOnline } from './triggers.js';
import { uuidv7 } from './uid.js';

export type { FailedItem, PendingItem, SyncClient } from './sync-client.js';

/**
 * Creates a client over `options.store`; call `open()` before anything else. The facade wires its
 * parts: the local state (records, outbox, meta), the session (identity, auth, HTTP calls), the
 * scheduling (runner, tabs, triggers), the notification stream, conflicts, and the collections.
 */
export function createSyncClient(options: SyncClientOptions): SyncClient {
  const fetchFn = options.fetch ?? ((input: Parameters<typeof fetch>[0], init?: RequestInit) => globalThis.fetch(input, init));
  const now = options.now ?? (() => Date.now());
  const random = options.random ?? Math.random;
  const state = new LocalState(options.store);
  const status = new StatusCell({ signedIn: false, online: browserOnline(), syncing: false, pending: 0, failed: 0, lastSyncAt: null, lastError: null });
  let opened = false;
  const ready = (): void => {
    if (!opened) throw new Error('call client.open() first');
  };
  const refreshStatus = (): void => status.update(statusOfState(state, session.auth.accessToken() !== undefined));

  const session = sessionPart({
    options,
    state,
    fetch: fetchFn,
    now,
    ready,
    signedIn: async () => {
      refreshStatus();
      await scheduling.runner.sync().catch(() => undefined);
    },
    signedOut: (error) => {
      if (!error) scheduling.tabs.announce('signed-out');
      status.update({ signedIn: false, ...(error ? { lastError: { kind: error.kind, code: error.code, message: error.message } } : { lastError: null }) });
      refreshStatus();
    },
  });
  const { auth, api, interop } = session;
  const scheduling = schedulingPart({
    options,
    state,
    status,
    random,
    round: () =>
      runRound({
        state, api, now,
        pageSize: options.pageSize ?? 500,
        maxAttempts: options.maxAttempts ?? 5,
        maxBatchItems: options.maxBatchItems ?? 1000,
        settleWaitMs: options.settleWaitMs ?? 2000,
        onConflicts: (c) => conflicts.emit(c),
      }),
    opened: () => opened,
    signedIn: () => auth.accessToken() !== undefined,
    refreshStatus,
  });
  const { runner } = scheduling;
  const notifications = notificationsPart({ baseUrl: options.baseUrl.replace(/\/$/, ''), fetch: fetchFn, auth, state, random, now, requestRound: (reason) => runner.request(reason) });
  if (options.notifications ?? true) scheduling.addTrigger(notifications.trigger);
  state.onChange(refreshStatus);
  const conflicts = conflictsPart(state, api, () => runner.request('manual'));

  const wrote = (): void => scheduling.wrote();
  const eventCollection = createCollection<EventFields>('events', state, wrote, ready);
  const reminderCollection = createCollection<ReminderFields>('reminders', state, wrote, ready);
  const events = Object.assign(eventCollection, occurrenceOperations(state, { events: eventCollection, reminders: reminderCollection }, () => uuidv7(now())));
  const calendars = createCollection<CalendarFields>('calendars', state, wrote, ready);
  const tasks = createCollection<TaskFields>('tasks', state, wrote, ready);
  const reminders = Object.assign(reminderCollection, { onDue: notifications.onDue });

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
    importIcs: (text, importOptions) => {
      ready();
      return importIcs({ calendars, events, tasks, reminders }, text, importOptions);
    },
    sync() {
      ready();
      if (auth.accessToken() === undefined) return Promise.reject(new ApiError('signed-out', 401, 'UNAUTHORIZED', 'not signed in'));
      return runner.sync();
    },
    start() {
      ready();
      scheduling.start();
    },
    stop: () => scheduling.stop(),
    get status() {
      return status.value;
    },
    onStatus: (listener) => status.subscribe(listener),
    conflicts: conflicts.facade,
    ...accountParts({ state, api, auth, appDeviceUid: options.device.uid, ready }),
    ...outboxParts(state, () => runner.request('manual')),
    requestSync: (reason = 'notification') => runner.request(reason),
    addTrigger: (source) => scheduling.addTrigger(source),
    async close() {
      scheduling.stop();
      scheduling.close();
      await runner.sync().catch(() => undefined).then(() => undefined, () => undefined);
      await state.flushed();
      await options.store.close();
      opened = false;
    },
  };
}
