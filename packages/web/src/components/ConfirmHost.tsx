import { useEffect, useId, useRef, useSyncExternalStore } from 'react';

/**
 * "Are you sure?" before a delete: a modal `role="alertdialog"` that names what goes ("Delete
 * “Family” and its 3 events?"), with "Delete" and "Cancel" (which has the focus, so Enter does
 * not delete by accident). `confirmDelete` answers true for Delete; the shell renders
 * `<ConfirmHost />` once.
 */
export interface ConfirmRequest {
  /** The question, e.g. "Delete “Family” and its 3 events?" */
  readonly title: string;
  /** A line under it (what Undo can and cannot bring back, say). */
  readonly detail?: string;
  readonly confirmLabel?: string;
}

interface Pending extends ConfirmRequest {
  readonly answer: (ok: boolean) => void;
}

let pending: Pending | null = null;
const listeners = new Set<() => void>();
const set = (next: Pending | null): void => {
  pending = next;
  for (const l of [...listeners]) l();
};
const subscribe = (l: () => void): (() => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

/** Asks; answers true when the person pressed Delete. */
export function confirmDelete(request: ConfirmRequest): Promise<boolean> {
  pending?.answer(false);
  return new Promise((resolve) => {
    set({
      ...request,
      answer: (ok) => {
        set(null);
        resolve(ok);
      },
    });
  });
}

/** The confirmation dialog; render once. */
export function ConfirmHost() {
  const request = useSyncExternalStore(subscribe, () => pending);
  return request ? <ConfirmDialog key={request.title} request={request} /> : null;
}

function ConfirmDialog({ request }: { request: Pending }) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const id = useId();
  useEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement as HTMLElement | null;
    if (dialog && !dialog.open) dialog.showModal();
    cancel.current?.focus();
    return () => {
      dialog?.close();
      opener?.focus?.();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      role="alertdialog"
      aria-modal="true"
      aria-labelledby={`${id}-title`}
      aria-describedby={request.detail ? `${id}-detail` : undefined}
      className="card confirm"
      onCancel={(e) => {
        e.preventDefault();
        request.answer(false);
      }}
    >
      <h2 id={`${id}-title`}>{request.title}</h2>
      {request.detail && (
        <p id={`${id}-detail`} className="hint">
          {request.detail}
        </p>
      )}
      <div className="actions">
        <button type="button" className="danger-solid" onClick={() => request.answer(true)}>
          {request.confirmLabel ?? 'Delete'}
        </button>
        <button ref={cancel} type="button" className="secondary" onClick={() => request.answer(false)}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
