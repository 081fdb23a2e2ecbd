import { errorCode, errorMessage } from '../errors.js';

/**
 * An error as people read it: the friendly message (`messages` may say it better for a code in
 * this place), and the raw code only in a small details line.
 */
export function ErrorNote({ error, id, messages }: { error: unknown; id?: string; messages?: Readonly<Record<string, string>> }) {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  // The code, and what the SDK or server said besides ("title: must have at most 500 characters").
  const raw = code === null ? message : message && message !== code ? `${code}: ${message}` : code;
  return (
    <div id={id} role="alert" className="error-note">
      <p className="error">{(code && messages?.[code]) || errorMessage(error)}</p>
      {raw && <p className="error-details">Details: {raw}</p>}
    </div>
  );
}
