/** A message a person can act on, from whatever the SDK threw (its errors carry the API's code and message). */
export function errorMessage(err: unknown): string {
  if (!navigator.onLine) return 'You are offline: signing in needs the network.';
  const e = err as { code?: unknown; message?: unknown } | null;
  if (e && typeof e.message === 'string' && e.message) return e.message;
  if (e && typeof e.code === 'string') return e.code;
  return 'Something went wrong. Please try again.';
}
