import { useEffect, useSyncExternalStore } from 'react';

/**
 * Toasts: short messages at the bottom of the screen, each with an optional action ("Undo",
 * "Show") and a close button. Any module may call `showToast`; the app shell renders `<Toasts />`
 * once. A toast goes after `durationMs` (6 s unless given) or when its action or close is pressed.
 */
export interface ToastOptions {
  readonly message: string;
  /** A button on the toast; pressing it runs `run` and closes the toast. */
  readonly action?: { readonly label: string; readonly run: () => void | Promise<void> };
  readonly durationMs?: number;
  /** 'alert' for what went wrong; 'info' (default) otherwise. */
  readonly tone?: 'info' | 'alert';
}

interface Toast extends ToastOptions {
  readonly id: number;
}

let toasts: readonly Toast[] = [];
let nextId = 1;
const listeners = new Set<() => void>();

function set(next: readonly Toast[]): void {
  toasts = next;
  for (const l of [...listeners]) l();
}

/** Shows a toast; answers a function that closes it. */
export function showToast(options: ToastOptions): () => void {
  const id = nextId++;
  set([...toasts, { ...options, id }].slice(-3));
  return () => closeToast(id);
}

function closeToast(id: number): void {
  if (toasts.some((t) => t.id === id)) set(toasts.filter((t) => t.id !== id));
}

const subscribe = (l: () => void): (() => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

/** The toast region; render once. */
export function Toasts() {
  const list = useSyncExternalStore(subscribe, () => toasts);
  return (
    <div className="toasts" aria-live="polite" aria-label="Notifications" role="region">
      {list.map((t) => (
        <ToastItem key={t.id} toast={t} />
      ))}
    </div>
  );
}

function ToastItem({ toast }: { toast: Toast }) {
  useEffect(() => {
    const timer = setTimeout(() => closeToast(toast.id), toast.durationMs ?? 6000);
    return () => clearTimeout(timer);
  }, [toast.id, toast.durationMs]);
  return (
    <div className={`toast toast-${toast.tone ?? 'info'}`}>
      <span className="toast-message">{toast.message}</span>
      {toast.action && (
        <button
          type="button"
          className="toast-action"
          onClick={() => {
            closeToast(toast.id);
            void toast.action?.run();
          }}
        >
          {toast.action.label}
        </button>
      )}
      <button type="button" className="toast-close" aria-label={`Close: ${toast.message}`} onClick={() => closeToast(toast.id)}>
        ×
      </button>
    </div>
  );
}
