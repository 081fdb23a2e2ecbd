import { createParser } from 'eventsource-parser';
/** One item read from a text/event-stream: a dispatched event, or a comment line. */
export type StreamItem =
  | { readonly kind: 'event'; readonly event: string; readonly data: string; readonly id: string | null }
  | { readonly kind: 'comment'; readonly text: string };

/** An open event stream (or the refusal that came instead of one). */
export interface OpenedStream {
  readonly status: number;
  readonly headers: Headers;
  /** The JSON body of a refusal (status other than 200); null for a stream. */
  readonly refusal: unknown;
  /** The next item; rejects when none comes within `timeoutMs` or the stream ended. */
  next(timeoutMs?: number): Promise<StreamItem>;
  /** The next event (comments skipped). */
  nextEvent(timeoutMs?: number): Promise<Extract<StreamItem, { kind: 'event' }>>;
  /** True once the server ended the response. */
  readonly ended: boolean;
  close(): void;
}

/**
 * A test reader of server-sent events over fetch (headers such as Authorization are allowed,
 * unlike EventSource), with the parser the SDK uses: tests see the events a device sees, and the
 * comments (heartbeats) as well.
 */
export async function openEventStream(url: string, headers: Record<string, string> = {}): Promise<OpenedStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  if (res.status !== 200 || !res.body) {
    const refusal = await res.json().catch(() => null);
    return { status: res.status, headers: res.headers, refusal, next: () => Promise.reject(new Error('refused')), nextEvent: () => Promise.reject(new Error('refused')), ended: true, close: () => {} };
  }
  const items: StreamItem[] = [];
  const waiters: (() => void)[] = [];
  let ended = false;
  const wake = () => waiters.splice(0).forEach((w) => w());
  void (async () => {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    // The SDK's parser (eventsource-parser), so tests read the server as a device does; comments
    // are kept as items too, so tests see the heartbeats.
    const parser = createParser({
      onEvent: (e) => {
        items.push({ kind: 'event', event: e.event ?? 'message', data: e.data, id: e.id ?? null });
        wake();
      },
      onComment: (text) => {
        items.push({ kind: 'comment', text: text.trim() });
        wake();
      },
    });
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } catch {
      // aborted by close()
    } finally {
      ended = true;
      wake();
    }
  })();
  const next = async (timeoutMs = 5000): Promise<StreamItem> => {
    const deadline = Date.now() + timeoutMs;
    while (items.length === 0) {
      if (ended) throw new Error('the stream ended');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no stream item within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return items.shift()!;
  };
  return {
    status: res.status,
    headers: res.headers,
    refusal: null,
    next,
    async nextEvent(timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const item = await next(Math.max(1, deadline - Date.now()));
        if (item.kind === 'event') return item;
      }
    },
    get ended() {
      return ended && items.length === 0;
    },
    close: () => abort.abort(),
  };
}
