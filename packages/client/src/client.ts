import type { RecordType } from '@calsync/domain/rules';
import { AuthModule, type ClientAuth } from './auth.js';
import type { SyncClientOptions } from './client-options.js';
import { createCollection, type Collection } from './collection.js';
import { META, LocalState } from './engine/local-state.js';
import { planRecovery, planRetry } from './engine/outbox.js';
import { runRound } from './engine/sync-round.js';
import { SyncRunner, type SyncReason } from './engine/sync-runner.js';
import { ApiError } from './http/api-error.js';
import { CalsyncApi } from './http/api.js';
import { Transport } from './http/transport.js';
import type { CalendarFields, EventFields, ReminderFields, TaskFields } from './records.js';
import { notificationStreamTrigger } from './notify/notification-stream.js';
import { importIcs, type ImportIcsOptions, type ImportIcsResult } from './import-ics.js';
import { interopOperations, type AppPasswordOperations, type FeedOperations } from './interop.js';
import { localOccurrences, occurrenceOperations, type OccurrenceOperations, type OccurrencesQuery } from './series.js';
import { StatusCell, type SyncStatus } from './status.js';
import type { OutboxError } from './store/local-store.js';
import type { OccurrencePage } from '@calsync/domain/rules';
import { TabCoordinator } from './tab-coordinator.js';
import { browserOnline, debounce, onlineTrigger, periodicTrigger, visibleTrigger, type TriggerSource } from './triggers.js';
import { uuidv7 } from './uid.js';
import { withSide, type ClientConflict } from './engine/conflict-feed.js';
import type { WireDevice, WireProfileUpdate, WireResolveResponse, WireUser } from './wire.js';

/** A parked outbox item, as `outbox.failed()` lists it. */
export interface FailedItem {
  readonly type: RecordType;
  readonly uid: string;
  readonly op: 'upsert' | 'delete';
  readonly attempts: number;
  readonly error: OutboxError | null;
}

/** An outbox item as `outbox.pending()` lists it: a local change not yet answered by the server. */
export interface PendingItem extends FailedItem {
  /** `pending`: waits for a push; `inflight`: sent, answer outstanding; `failed`: parked (see `outbox.retry`). */
  readonly state: 'pending' | 'inflight' | 'failed';
}

/** The SDK's one object: local data, sign-in, the sync loop and its status. */
export interface SyncClient {
  /** Loads the store; items stuck in flight return to pending, parked ones get a fresh budget. */
  open(): Promise<void>;
  readonly auth: ClientAuth;
  readonly calendars: Collection<CalendarFields>;
  /** Events, with one-occurrence edits of series (`editOccurrence`, `removeOccurrence`). */
  readonly events: Collection<EventFields> & OccurrenceOperations;
  readonly tasks: Collection<TaskFields>;
  readonly reminders: Collection<ReminderFields>;
  /**
   * The occurrences of the local events that overlap a window: series expanded in their zones,
   * exdates and overrides applied, ordered by start (the server's GET /api/occurrences answers the
   * same from its copy). Works offline.
   */
  occurrences(query: OccurrencesQuery): OccurrencePage;
  /**
   * Imports an iCalendar file (.ics) as local writes: VEVENTs into `calendarUid` (RECURRENCE-IDs as
   * overrides, VALARMs as reminders), VTODOs as tasks. Idempotent: a second import of the same
   * text creates nothing. What no record can hold is listed in `skipped`, never dropped silently.
   */
  importIcs(text: string, options: ImportIcsOptions): Promise<ImportIcsResult>;
  /** Subscription feeds of calendars (read-only iCalendar URLs). */
  readonly feeds: FeedOperations;
  /** App passwords for CalDAV calendar apps. */
  readonly appPasswords: AppPasswordOperations;
  /** One push-then-pull round (bootstrap pull first when needed); a second call joins the running one. */
  sync(): Promise<void>;
  /** Starts the loop: debounced local writes, online, page visible, the periodic timer, added triggers. */
  start(): void;
  stop(): void;
  readonly status: SyncStatus;
  onStatus(listener: (status: SyncStatus) => void): () => void;
  readonly conflicts: {
    /** The user's unresolved conflicts, from the server, each with the side this device wrote (`mine`). */
    list(): Promise<ClientConflict[]>;
    /** Puts the losing version back (a new version every device pulls). */
    restore(conflictId: number): Promise<WireResolveResponse>;
    /** Keeps the winner. */
    dismiss(conflictId: number): Promise<WireResolveResponse>;
    /**
     * Calls `listener` with the conflicts new since the last round, whichever device's push made
     * them (a device hears of a conflict within its next round), each with `mine`: 'current' when
     * this device wrote the version that stands, 'loser' when it wrote the losing one, else null.
     */
    subscribe(listener: (conflicts: readonly ClientConflict[]) => void): () => void;
  };
  /** The account's signed-in devices (needs the network). */
  readonly devices: {
    /** The live devices of the account; this one has `current: true`. */
    list(): Promise<WireDevice[]>;
    /**
     * Revokes a device: its sessions end and its tokens stop working at once (it is signed out at
     * its next request). Revoking this client's own device is a sign-out: the local store is wiped
     * as by `auth.logout()`.
     */
    revoke(uid: string): Promise<void>;
  };
  /** The signed-in user's profile (needs the network). */
  readonly profile: {
    /** The user as the server has it now (also refreshes `auth.user()`). */
    get(): Promise<WireUser>;
    /** Changes name, e-mail, password or notification settings (merged key by key); returns the user. */
    update(patch: WireProfileUpdate): Promise<WireUser>;
  };
  readonly outbox: {
    failed(): FailedItem[];
    /** Every local change not yet answered by the server, in the order they go out. */
    pending(): PendingItem[];
    /** Parked items (of one uid, or all) back to pending with a fresh budget, then a sync. */
    retry(uid?: string): Promise<void>;
  };
  /** Whether the record has local changes the server has not answered yet. */
  isPending(type: RecordType, uid: string): boolean;
  /** Asks for a round as a trigger would (the notification listener calls this). */
  requestSync(reason?: SyncReason): void;
  /** Adds a trigger source, active while started; returns its removal. */
  addTrigger(source: TriggerSource): () => void;
  close(): Promise<void>;
}

/** Compile-time check: a record type added to the domain without its collection here fails to build. */
const everyRecordTypeHasACollection: RecordType extends keyof SyncClient ? true : never = true;
void everyRecordTypeHasACollection;

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
  const conflictListeners = new Set<(c: readonly ClientConflict[]) => void>();
  const triggerSources = new Set<TriggerSource>([onlineTrigger, visibleTrigger, periodicTrigger(periodicMs)]);
  const activeTriggers = new Map<TriggerSource, () => void>();
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
    triggerSources.add(notificationStreamTrigger({ baseUrl: options.baseUrl.replace(/\/$/, ''), fetch: fetchFn, tokens: auth, random, now }));
  }

  const runner = new SyncRunner({
    round: () =>
      runRound({
        state, api, pageSize, maxAttempts, maxBatchItems, now,
        onConflicts: (c) => {
          for (const l of [...conflictListeners]) l(c);
        },
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
      const offline = error instanceof ApiError && error.kind === 'network';
      status.update({
        syncing: false,
        online: offline ? false : error instanceof ApiError || ok ? true : status.value.online,
        lastError: error ? { kind: error instanceof ApiError ? error.kind : 'local', code: error instanceof ApiError ? error.code : 'CLIENT_ERROR', message: error.message } : null,
      });
      refreshStatus();
      if (ok) tabs.announce('synced');
    },
    setTimer: (fn, ms) => setTimeout(fn, ms),
    clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  });

  function refreshStatus(): void {
    const failed = state.outbox.filter((i) => i.state === 'failed').length;
    const last = state.meta.get(META.lastSyncAt);
    status.update({
      signedIn: auth.accessToken() !== undefined,
      pending: state.outbox.length - failed,
      failed,
      lastSyncAt: typeof last === 'string' ? last : null,
    });
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
  const reminders = createCollection<ReminderFields>('reminders', state, wrote, ready);

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
    conflicts: {
      async list() {
        const all: ClientConflict[] = [];
        let afterId: number | undefined;
        for (;;) {
          const page = await api.conflicts(afterId, 200);
          all.push(...page.conflicts.map((c) => withSide(state, c)));
          if (!page.hasMore || page.nextAfterId === null) return all;
          afterId = page.nextAfterId;
        }
      },
      async restore(conflictId) {
        const answer = await api.resolve(conflictId, 'restore');
        runner.request('manual');
        return answer;
      },
      dismiss: (conflictId) => api.resolve(conflictId, 'dismiss'),
      subscribe(listener) {
        conflictListeners.add(listener);
        return () => conflictListeners.delete(listener);
      },
    },
    devices: {
      async list() {
        ready();
        return (await api.devices()).devices;
      },
      async revoke(uid) {
        ready();
        const own = state.text(META.deviceUid) ?? options.device.uid;
        await api.revokeDevice(uid);
        if (uid === own) await auth.forget();
      },
    },
    profile: {
      async get() {
        ready();
        const { user } = await api.me();
        await auth.rememberUser(user);
        return user;
      },
      async update(patch) {
        ready();
        const { user } = await api.updateProfile(patch);
        await auth.rememberUser(user);
        return user;
      },
    },
    outbox: {
      failed: () =>
        state.outbox.filter((i) => i.state === 'failed').map((i) => ({ type: i.type, uid: i.uid, op: i.op, attempts: i.attempts, error: i.lastError })),
      pending: () => state.outbox.map((i) => ({ type: i.type, uid: i.uid, op: i.op, attempts: i.attempts, error: i.lastError, state: i.state })),
      async retry(uid) {
        await state.commit(planRetry(state, uid));
        runner.request('manual');
      },
    },
    isPending: (type, uid) => state.outbox.some((i) => i.type === type && i.uid === uid),
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
