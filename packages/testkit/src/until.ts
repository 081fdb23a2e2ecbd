/**
 * Waits until `check()` holds (it may be async), polling every `every` ms; throws "timed out
 * waiting for <what>" after `ms`. For what arrives asynchronously in tests (a change feed, a
 * stream, a server's metric); a test asserts what it waited for, never how long it took.
 */
export async function until(check: () => boolean | Promise<boolean>, opts: { ms?: number; what?: string; every?: number } = {}): Promise<void> {
  const { ms = 10_000, what = 'the condition', every = 20 } = opts;
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}
