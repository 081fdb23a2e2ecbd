import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A modal <dialog>: the browser traps focus inside, Escape closes it, and focus returns to where it
 * was. Labelled by its heading.
 */
export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement as HTMLElement | null;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      dialog?.close();
      opener?.focus?.();
    };
  }, []);
  return (
    <dialog ref={ref} aria-labelledby="dialog-title" onCancel={(e) => { e.preventDefault(); onClose(); }} className="card">
      <h2 id="dialog-title">{title}</h2>
      {children}
    </dialog>
  );
}
