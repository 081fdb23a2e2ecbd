import type { SyncClientOptions } from '../client-options.js';
import type { LocalState } from '../engine/local-state.js';
import { hasFreshItems } from '../engine/outbox.js';
import { SyncRunner, type SyncReason } from '../engine/sync-runner.js';
import type { ApiError } from '../http/api-error.js';
import type { StatusCell } from '../status.js';
import type { SyncClient } from '../sync-client.js';
import { TabCoordinator } from '../tab-coordinator.js';
import { debounce, onlineTrigger, periodicTrigger, visibleTrigger, type TriggerSource } from '../triggers.js';
import { statusAfterRound } from './status.js';

/** What the scheduling part needs from the rest of the client. */
export interface SchedulingInput {
  readonly options: SyncClientOptions;
  readonly state: LocalState;
  readonly status: StatusCell;
  readonly random: () => number;
  /** One sync round (push, pull, conflicts). */
  readonly round: () => Promise<void>;
  /** True once `open()` has read the store. */
  readonly opened: () => boolean;
  /** True while a session is held. */
  readonly signedIn: () => boolean;
  /** Reads the status off the local state again (pending, failed, signed in). */
  readonly refreshStatus: () => void;
}

/**
 * When rounds run: one runner (retries with backoff, one round at a time), the tabs of one browser
 * (only the leader syncs; the others read the shared store again when it changes), and the
 * triggers that ask for a round while the client is started (writes, debounced; network back; page
 * visible; a timer; the notification stream; the app's own).
 */
export interface Scheduling {
  readonly runner: SyncRunner;
  readonly tabs: TabCoordinator;
  /** A local write was committed: tell the other tabs, and ask for a round after the debounce. */
  wrote(): void;
  /** Adds a trigger source for every later start (and this one, when started). */
  addTrigger: SyncClient['addTrigger'];
  start(): void;
  stop(): void;
  /** Stops watching the other tabs and leaves the tab group. */
  close(): void;
}

export function schedulingPart(input: SchedulingInput): Scheduling {
  const { options, state, status } = input;
  const tabs = new TabCoordinator(options.lockName ?? (options.baseUrl || 'default'));
  const sources = new Set<TriggerSource>([onlineTrigger, visibleTrigger, periodicTrigger(options.periodicMs ?? 60_000)]);
  const active = new Map<TriggerSource, () => void>();
  let started = false;

  const runner = new SyncRunner({
    round: input.round,
    exclusive: (fn) => fn(),
    mayRun: () => input.opened() && tabs.leader && input.signedIn(),
    hasPushable: () => hasFreshItems(state),
    random: input.random,
    onState: ({ syncing, error, ok }: { syncing: boolean; error: ApiError | Error | null; ok: boolean }) => {
      if (syncing) {
        status.update({ syncing: true });
        return;
      }
      status.update(statusAfterRound(status.value, error, ok));
      input.refreshStatus();
      if (ok) tabs.announce('synced');
    },
    setTimer: (fn, ms) => setTimeout(fn, ms),
    clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  });
  const request = (reason: SyncReason): void => runner.request(reason);
  const writeDebounce = debounce(() => request('write'), options.debounceMs ?? 500);
  const activate = (source: TriggerSource): void => {
    active.set(source, source(request));
  };
  // Another tab changed the shared store: read it again. Its write is in the store (it announces
  // after the commit), so the leader then schedules its debounced round, as for a write of its own.
  const unwatchTabs = tabs.onRemoteChange((change) => {
    void state.reload().then(() => {
      if (change === 'write' && started && tabs.leader) writeDebounce.call();
    }, () => undefined);
  });

  return {
    runner,
    tabs,
    wrote() {
      tabs.announce('write');
      if (started) writeDebounce.call();
    },
    addTrigger(source) {
      sources.add(source);
      if (started && tabs.leader) activate(source);
      return () => {
        sources.delete(source);
        active.get(source)?.();
        active.delete(source);
      };
    },
    start() {
      if (started) return;
      started = true;
      runner.start();
      tabs.compete(() => {
        if (!started) return;
        for (const source of sources) activate(source);
        request('manual');
      });
    },
    stop() {
      if (!started) return;
      started = false;
      writeDebounce.cancel();
      runner.stop();
      for (const cleanup of active.values()) cleanup();
      active.clear();
      tabs.resign();
    },
    close() {
      unwatchTabs();
      tabs.close();
    },
  };
}
