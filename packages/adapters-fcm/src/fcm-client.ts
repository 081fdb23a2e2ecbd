import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { JWT, type JWTOptions } from 'google-auth-library';
import { backoffMs, type UserAlert } from '@calsync/domain';
import type { ServiceAccount } from './service-account.js';

// google-auth-library is CommonJS and checks nothing but the shape of its transporter; take gaxios's
// CommonJS build too, so the transporter is the very class the library itself would make.
type Transporter = NonNullable<JWTOptions['transporter']>;
const { Gaxios } = createRequire(import.meta.url)('gaxios') as { Gaxios: new () => Transporter };

/** OAuth2 scope that allows sending FCM messages. */
const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
/** The token endpoint google-auth-library posts the signed assertion to. */
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/** What happened to one message. `reason` names a failure for metrics; `clearToken` says the token is dead. */
export type FcmOutcome = { readonly ok: true } | { readonly ok: false; readonly reason: string; readonly clearToken: boolean; readonly detail?: string };

/** Options of `FcmClient`. */
export interface FcmClientOptions {
  readonly projectId: string;
  readonly account: ServiceAccount;
  /** Base URL of the HTTP v1 API (default https://fcm.googleapis.com). */
  readonly endpoint?: string;
  /** OAuth2 token endpoint; defaults to the key's token_uri, then Google's. */
  readonly tokenUrl?: string;
  /** Attempts per message for 429, 5xx and network errors (default 4). */
  readonly maxAttempts?: number;
  /** First backoff when no Retry-After is given (doubles, with jitter; default 500 ms). */
  readonly baseDelayMs?: number;
  /** Longest wait between attempts, Retry-After included (default 60 s). */
  readonly maxDelayMs?: number;
  /** Per-request timeout (default 10 s). */
  readonly timeoutMs?: number;
  /** How to wait between attempts (tests record the waits instead of sleeping). */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** The data message every device gets: the app runs its sync loop on it. */
export function syncMessage(token: string, version: string): unknown {
  return {
    message: {
      token,
      data: { type: 'sync', version },
      // One pending sync message per device: a newer one replaces an undelivered older one.
      android: { collapse_key: 'sync' },
      apns: {
        headers: { 'apns-push-type': 'background', 'apns-priority': '5', 'apns-collapse-id': 'sync' },
        payload: { aps: { 'content-available': 1 } },
      },
      webpush: { headers: { Topic: 'sync', Urgency: 'normal' } },
    },
  };
}

/** The time a visible reminder notification shows (devices localise from the data fields; this is the fallback text). */
function whenText(iso: string | null): string {
  if (iso === null) return '';
  if (/^\d{4}-\d{2}-\d{2}$/.test(iso)) return iso;
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * The message a device gets for an alert: data `{"type":"reminder"|"conflict", …}` (string values)
 * with a visible notification. A reminder's collapse key names its (reminder, occurrence), so a
 * repeated send replaces rather than duplicates it on the device.
 */
export function alertMessage(token: string, alert: UserAlert): unknown {
  let data: Record<string, string>;
  let notification: { title: string; body: string };
  let tag: string;
  if (alert.kind === 'reminder') {
    data = {
      type: 'reminder',
      reminderUid: alert.reminderUid,
      ...(alert.eventUid === undefined ? {} : { eventUid: alert.eventUid }),
      ...(alert.taskUid === undefined ? {} : { taskUid: alert.taskUid }),
      occurrenceStart: alert.occurrenceStart,
      title: alert.title,
      start: alert.start ?? '',
      dueAt: alert.dueAt,
    };
    notification = { title: alert.title, body: whenText(alert.start ?? alert.dueAt) };
    tag = `r-${createHash('sha256').update(`${alert.reminderUid}\u0000${alert.occurrenceStart}`).digest('hex').slice(0, 32)}`;
  } else {
    data = { type: 'conflict', conflictId: String(alert.conflictId), entityType: alert.entityType, entityUid: alert.entityUid };
    notification = { title: 'Sync conflict', body: `A change to a ${alert.entityType.toLowerCase()} conflicted with another device's; open the app to choose.` };
    tag = `conflict-${alert.conflictId}`;
  }
  return {
    message: {
      token,
      data,
      notification,
      android: { priority: 'high', collapse_key: tag, notification: { tag } },
      apns: { headers: { 'apns-push-type': 'alert', 'apns-priority': '10', 'apns-collapse-id': tag }, payload: { aps: { sound: 'default' } } },
      webpush: { headers: { Topic: tag.slice(0, 32), Urgency: 'high' } },
    },
  };
}

/** Seconds (or an HTTP date) of a Retry-After header, as ms; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Classifies an FCM error answer (status + google.rpc error body). */
function classify(status: number, body: unknown): FcmOutcome {
  const error = (body as { error?: { status?: string; message?: string; details?: unknown[] } } | null)?.error;
  const details = Array.isArray(error?.details) ? (error.details as Record<string, unknown>[]) : [];
  const fcmCode = details.find((d) => typeof d.errorCode === 'string')?.errorCode as string | undefined;
  const tokenViolation = details.some(
    (d) => Array.isArray(d.fieldViolations) && (d.fieldViolations as { field?: unknown }[]).some((v) => v.field === 'message.token'),
  );
  const detail = typeof error?.message === 'string' ? error.message.slice(0, 200) : undefined;
  const out = (reason: string, clearToken = false): FcmOutcome => ({ ok: false, reason, clearToken, ...(detail ? { detail } : {}) });
  if (fcmCode === 'UNREGISTERED' || status === 404) return out('unregistered', true);
  if (status === 400) return tokenViolation ? out('invalid-token', true) : out('invalid-argument');
  if (status === 401 || status === 403) return out(fcmCode === 'SENDER_ID_MISMATCH' ? 'sender-id-mismatch' : 'auth');
  if (status === 429) return out('quota');
  if (status >= 500) return out('unavailable');
  return out(`http-${status}`);
}

/**
 * Sends FCM HTTP v1 messages for one project. The OAuth2 service-account flow (signed JWT
 * assertion exchanged for an access token, cached until shortly before it expires) is
 * google-auth-library's JWT client; its token request is pointed at `tokenUrl` when one is set.
 * 429, 5xx and network errors are retried with exponential backoff and jitter, honouring
 * Retry-After; `send` never throws.
 */
export class FcmClient {
  readonly #jwt: JWT;
  readonly #url: string;
  readonly #opts: Required<Pick<FcmClientOptions, 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs' | 'timeoutMs' | 'sleep'>>;
  #stopped = false;

  constructor(options: FcmClientOptions) {
    const tokenUrl = options.tokenUrl ?? options.account.tokenUri ?? GOOGLE_TOKEN_URL;
    const transporter = new Gaxios();
    if (tokenUrl !== GOOGLE_TOKEN_URL) {
      transporter.interceptors.request.add({
        resolved: async (config) => {
          if (config.url.href === GOOGLE_TOKEN_URL) config.url = new URL(tokenUrl);
          return config;
        },
      });
    }
    this.#jwt = new JWT({ email: options.account.clientEmail, key: options.account.privateKey, scopes: [FCM_SCOPE], transporter });
    const base = (options.endpoint ?? 'https://fcm.googleapis.com').replace(/\/+$/, '');
    this.#url = `${base}/v1/projects/${encodeURIComponent(options.projectId)}/messages:send`;
    const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
    this.#opts = { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 60_000, timeoutMs: 10_000, sleep, ...stripUndefined(options) };
  }

  /** Sends the sync data message to one registration token, retrying what is worth retrying. */
  send(token: string, version: string): Promise<FcmOutcome> {
    return this.#post(JSON.stringify(syncMessage(token, version)));
  }

  /** Sends an alert's visible notification (`alertMessage`) to one registration token, retrying as `send` does. */
  sendAlert(token: string, alert: UserAlert): Promise<FcmOutcome> {
    return this.#post(JSON.stringify(alertMessage(token, alert)));
  }

  async #post(body: string): Promise<FcmOutcome> {
    let last: FcmOutcome = { ok: false, reason: 'not-sent', clearToken: false };
    for (let attempt = 0; attempt < this.#opts.maxAttempts && !this.#stopped; attempt++) {
      let wait: number | null = null;
      try {
        const accessToken = await this.#accessToken();
        if (accessToken === null) return { ok: false, reason: 'token-exchange', clearToken: false };
        const res = await fetch(this.#url, {
          method: 'POST',
          headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json; charset=utf-8' },
          body,
          signal: AbortSignal.timeout(this.#opts.timeoutMs),
        });
        if (res.ok) {
          await res.body?.cancel();
          return { ok: true };
        }
        last = classify(res.status, await res.json().catch(() => null));
        if (res.status !== 429 && res.status < 500) return last;
        wait = retryAfterMs(res.headers.get('retry-after'));
      } catch (error) {
        last = { ok: false, reason: 'network', clearToken: false, detail: error instanceof Error ? error.message.slice(0, 200) : 'error' };
      }
      if (attempt + 1 < this.#opts.maxAttempts) await this.#opts.sleep(Math.min(wait ?? this.#backoff(attempt), this.#opts.maxDelayMs));
    }
    return last;
  }

  /** Stops retrying (shutdown): messages in flight give up after their current attempt. */
  stop(): void {
    this.#stopped = true;
  }

  async #accessToken(): Promise<string | null> {
    try {
      const { token } = await this.#jwt.getAccessToken();
      return token ?? null;
    } catch {
      return null;
    }
  }

  #backoff(attempt: number): number {
    return backoffMs(attempt, { baseMs: this.#opts.baseDelayMs, maxMs: this.#opts.maxDelayMs, jitter: 'equal' });
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
