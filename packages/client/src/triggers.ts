import type { SyncReason } from './engine/sync-runner.js';

/**
 * A source of sync triggers: called with `fire` when the loop starts, returns its cleanup. The
 * client's own sources are the environment events below and a periodic timer; a notification
 * listener (server-sent "data changed") is one more source, added with `client.addTrigger`.
 */
export type TriggerSource = (fire: (reason: SyncReason) => void) => () => void;

interface EventTargetLike {
  addEventListener(type: string, listener: () => void): void;
  removeEventListener(type: string, listener: () => void): void;
}

/** `online` on window: the network came back. */
export const onlineTrigger: TriggerSource = (fire) => {
  const target = (globalThis as { window?: EventTargetLike }).window;
  if (!target?.addEventListener) return () => undefined;
  const listener = (): void => fire('online');
  target.addEventListener('online', listener);
  return () => target.removeEventListener('online', listener);
};

/** `visibilitychange` to visible: the user came back to the page. */
export const visibleTrigger: TriggerSource = (fire) => {
  const doc = (globalThis as { document?: EventTargetLike & { visibilityState?: string } }).document;
  if (!doc?.addEventListener) return () => undefined;
  const listener = (): void => {
    if (doc.visibilityState === 'visible') fire('visible');
  };
  doc.addEventListener('visibilitychange', listener);
  return () => doc.removeEventListener('visibilitychange', listener);
};

/** A timer every `ms` milliseconds. */
export function periodicTrigger(ms: number): TriggerSource {
  return (fire) => {
    const handle = setInterval(() => fire('timer'), ms);
    return () => clearInterval(handle);
  };
}

/** The browser's idea of being online; true where there is none. */
export function browserOnline(): boolean {
  const nav = (globalThis as { navigator?: { onLine?: boolean } }).navigator;
  return nav?.onLine ?? true;
}

/** A debounced call: each `call()` pushes the run back by `ms`; `cancel()` drops a pending run. */
export function debounce(fn: () => void, ms: number): { call: () => void; cancel: () => void } {
  let handle: ReturnType<typeof setTimeout> | null = null;
  return {
    call: () => {
      if (handle !== null) clearTimeout(handle);
      handle = setTimeout(() => {
        handle = null;
        fn();
      }, ms);
    },
    cancel: () => {
      if (handle !== null) clearTimeout(handle);
      handle = null;
    },
  };
}
