import { backoffDelay } from '../engine/backoff.js';
import type { SyncReason } from '../engine/sync-runner.js';
import { parseRetryAfter } from '../http/api-error.js';
import type { TokenSource } from '../http/transport.js';
import type { TriggerSource } from '../triggers.js';
import type { ConflictEventWire as WireConflictEvent, ReminderEventWire as WireReminderEvent } from '@calsync/wire';
import { createParser } from 'eventsource-parser';

/** Where the stream is: `live` once `ready` arrived, `down` while it reconnects or waits, `off` for good. */
export type StreamState = 'live' | 'down' | 'off';

/** What the notification listener needs from the client. */
export interface NotificationStreamOptions {
  /** The server's origin, without a trailing slash. */
  readonly baseUrl: string;
  readonly fetch: typeof fetch;
  readonly tokens: Pick<TokenSource, 'accessToken' | 'renew'>;
  readonly random: () => number;
  readonly now: () => number;
  /** No byte for this long (the server sends a comment every 25 s) means a dead connection (70 s). */
  readonly idleTimeoutMs?: number;
  /** Told when the stream goes live, down, or off (a server without the stream). */
  readonly onState?: (state: StreamState) => void;
  /** Told of each `reminder` event (a reminder of the user fell due). */
  readonly onReminder?: (due: WireReminderEvent) => void;
  /** Told of each `conflict` event (a push of another device made a conflict). */
  readonly onConflict?: (conflict: WireConflictEvent) => void;
}

const isText = (v: unknown): v is string => typeof v === 'string';

/** The `data` of a `reminder` event, when it has the documented shape. */
function reminderOf(data: Record<string, unknown>): WireReminderEvent | null {
  if (![data.reminderUid, data.occurrenceStart, data.title, data.dueAt].every(isText)) return null;
  if ((data.eventUid !== undefined && !isText(data.eventUid)) || (data.taskUid !== undefined && !isText(data.taskUid)) || (data.start !== null && !isText(data.start))) return null;
  return {
    reminderUid: data.reminderUid as string,
    ...(isText(data.eventUid) ? { eventUid: data.eventUid } : {}),
    ...(isText(data.taskUid) ? { taskUid: data.taskUid } : {}),
    occurrenceStart: data.occurrenceStart as string,
    title: data.title as string,
    start: (data.start ?? null) as string | null,
    dueAt: data.dueAt as string,
  };
}

/** The `data` of a `conflict` event, when it has the documented shape. */
function conflictOf(data: Record<string, unknown>): WireConflictEvent | null {
  if (!Number.isSafeInteger(data.conflictId) || !isText(data.entityUid)) return null;
  if (!['CALENDAR', 'EVENT', 'TASK', 'REMINDER'].includes(String(data.entityType))) return null;
  return { conflictId: data.conflictId as number, entityType: data.entityType as WireConflictEvent['entityType'], entityUid: data.entityUid };
}

/** Why one connection ended, and what to do next. */
type Outcome =
  | { readonly next: 'reconnect'; readonly waitMs: number; readonly failed: boolean }
  | { readonly next: 'renew' }
  /** The session is over: wait until the client holds another access token. */
  | { readonly next: 'signed-out'; readonly token: string }
  /** The server has no stream: the periodic timer is all there is. */
  | { readonly next: 'stop' };

/**
 * The server's data-changed stream (GET /api/sync/stream) as a trigger source: every `changed`
 * event asks for a sync round (reason `notification`); `reminder` and `conflict` events go to
 * `onReminder` and `onConflict`. It reads the stream with fetch, since
 * EventSource cannot send a Bearer header, and reconnects with exponential backoff and jitter
 * (Retry-After when the server gives one), sending the last event id so the server says at once if
 * anything changed meanwhile; after a reconnect it also asks for one round, in case. While it is
 * down the client's periodic timer keeps syncing. An expired token is renewed and the stream
 * reopened; after a revoked session it waits for the next sign-in; a server without the route
 * ends the listener.
 */
export function notificationStreamTrigger(options: NotificationStreamOptions): TriggerSource {
  return (fire) => {
    const abort = new AbortController();
    void run(options, fire, abort.signal);
    return () => abort.abort();
  };
}

async function run(options: NotificationStreamOptions, fire: (reason: SyncReason) => void, signal: AbortSignal): Promise<void> {
  const state = { lastEventId: null as string | null, everLive: false, failures: 0 };
  while (!signal.aborted) {
    const outcome = await connectOnce(options, fire, signal, state);
    if (signal.aborted) return;
    if (outcome.next === 'stop') {
      options.onState?.('off');
      return;
    }
    options.onState?.('down');
    if (outcome.next === 'signed-out') {
      while (!signal.aborted && options.tokens.accessToken() === outcome.token) await sleep(2000, signal);
      state.lastEventId = null;
      continue;
    }
    if (outcome.next === 'renew') {
      let renewed = false;
      try {
        renewed = await options.tokens.renew();
      } catch {
        // The server was not reachable: back off below and try again.
      }
      if (renewed) continue;
      state.failures++;
      await sleep(backoffDelay(state.failures, options.random), signal);
      continue;
    }
    state.failures = outcome.failed ? state.failures + 1 : 0;
    await sleep(outcome.waitMs > 0 ? outcome.waitMs : outcome.failed ? backoffDelay(state.failures, options.random) : 0, signal);
  }
}

async function connectOnce(
  options: NotificationStreamOptions,
  fire: (reason: SyncReason) => void,
  signal: AbortSignal,
  state: { lastEventId: string | null; everLive: boolean; failures: number },
): Promise<Outcome> {
  const token = options.tokens.accessToken();
  // Not signed in (yet): look again later; the periodic timer covers the gap.
  if (!token) return { next: 'reconnect', waitMs: 2000, failed: false };
  const connection = new AbortController();
  const stop = (): void => connection.abort();
  signal.addEventListener('abort', stop);
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  const idleMs = options.idleTimeoutMs ?? 70_000;
  const alive = (): void => {
    clearTimeout(watchdog);
    watchdog = setTimeout(stop, idleMs);
  };
  try {
    const headers: Record<string, string> = { accept: 'text/event-stream', authorization: `Bearer ${token}` };
    if (state.lastEventId !== null) headers['last-event-id'] = state.lastEventId;
    alive();
    const res = await options.fetch(`${options.baseUrl}/api/sync/stream`, { headers, signal: connection.signal });
    if (res.status !== 200 || !res.body) {
      const outcome = await refused(res, options.now(), token);
      // A session the server ended (revoked, refresh family gone): a round finds out at once (its
      // request is refused too, and the client signs out) instead of at the periodic timer.
      if (outcome.next === 'signed-out') fire('notification');
      return outcome;
    }
    let closed: string | null = null;
    const parser = createParser({ onEvent: (message) => {
      const e = { event: message.event ?? 'message', data: message.data, id: message.id ?? null };
      let data: Record<string, unknown> = {};
      try {
        const parsed: unknown = JSON.parse(e.data);
        if (parsed === null || typeof parsed !== 'object') return;
        data = parsed as Record<string, unknown>;
      } catch {
        return;
      }
      if (e.event === 'ready') {
        state.failures = 0;
        options.onState?.('live');
        // Reopened after a gap: what changed meanwhile is not announced, so look once.
        if (state.everLive) fire('notification');
        state.everLive = true;
      } else if (e.event === 'changed') {
        if (e.id) state.lastEventId = e.id;
        fire('notification');
      } else if (e.event === 'reminder') {
        const due = reminderOf(data);
        if (due !== null) options.onReminder?.(due);
      } else if (e.event === 'conflict') {
        const conflict = conflictOf(data);
        if (conflict !== null) options.onConflict?.(conflict);
      } else if (e.event === 'closed' && typeof data.reason === 'string') {
        closed = data.reason;
      }
    } });
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      alive();
      parser.feed(value);
      if (closed !== null) break;
    }
    await reader.cancel().catch(() => undefined);
    if (closed === 'expired') return { next: 'renew' };
    if (closed === 'revoked') {
      // The session is over: a round finds out (its request is refused) and signs the device out.
      fire('notification');
      return { next: 'signed-out', token };
    }
    // `shutdown`, or the connection simply ended: another node will take it.
    return { next: 'reconnect', waitMs: closed === 'shutdown' ? 250 + Math.floor(options.random() * 1000) : 0, failed: closed === null };
  } catch {
    return { next: 'reconnect', waitMs: 0, failed: true };
  } finally {
    clearTimeout(watchdog);
    signal.removeEventListener('abort', stop);
    connection.abort();
  }
}

/** What a refused stream means for the listener. */
async function refused(res: Response, now: number, token: string): Promise<Outcome> {
  let code = '';
  try {
    const body = (await res.json()) as { error?: { code?: unknown } };
    code = typeof body.error?.code === 'string' ? body.error.code : '';
  } catch {
    // not an envelope
  }
  if (res.status === 401 && code === 'TOKEN_EXPIRED') return { next: 'renew' };
  if (res.status === 401 || res.status === 403) return { next: 'signed-out', token };
  if (res.status === 404) return { next: 'stop' };
  const retryAfter = parseRetryAfter(res.headers.get('retry-after'), now);
  return { next: 'reconnect', waitMs: retryAfter ?? 0, failed: true };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}
