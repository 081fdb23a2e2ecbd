import { errorCode, errorMessage } from '../errors.js';

/**
 * An error as people read it: the friendly message (`messages` may say it better for a code in
 * this place), and the raw code only in a small details line.
 */
export function ErrorNote({ error, id, messages }: { error: unknown; id?: string; messages?: Readonly<Record<string, string>> }) {
  const code = errorCode(error);
  const raw = code ?? (error instanceof Error ? error.message : String(error));
  return (
    <div id={id} role="alert" className="error-note">
      <p className="error">{(code && messages?.[code]) || errorMessage(error)}</p>
      {raw && <p className="error-details">Details: {raw}</p>}
    </div>
  );
}
