import { Agent, request } from 'undici';
import type { StandInSmsGateway } from '@calsync/testkit';
import type { PullResponseWire, PushResponseWire, SuccessEnvelopeWire } from '@calsync/wire';

/** Keep-alive connections shared by every simulated device of a benchmark run. */
export const agent = new Agent({ connections: 256, keepAliveTimeout: 30_000, pipelining: 1 });

/** Calls one route and returns the envelope's data; any non-2xx answer throws with its body. */
export async function call<T>(baseUrl: string, method: 'GET' | 'POST', path: string, opts: { token?: string; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await request(`${baseUrl}${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    dispatcher: agent,
  });
  const text = await res.body.text();
  if (res.statusCode < 200 || res.statusCode >= 300) {
    throw new Error(`${method} ${path} -> ${res.statusCode}: ${text.slice(0, 300)}`);
  }
  return (JSON.parse(text) as SuccessEnvelopeWire<T>).data;
}

/** A signed-in device: its access token and user id. */
export interface DeviceSession {
  readonly token: string;
  readonly userId: number;
  readonly deviceUid: string;
}

/** Signs a device in through the real OTP flow, reading the code from the stand-in gateway. */
export async function signIn(baseUrl: string, gateway: StandInSmsGateway, phone: string, deviceUid: string): Promise<DeviceSession> {
  await call(baseUrl, 'POST', '/api/auth/send-otp', { body: { phone } });
  const data = await call<{ accessToken: string; user: { id: number } }>(baseUrl, 'POST', '/api/auth/verify-otp', {
    body: { phone, otp: gateway.lastCode(phone), device: { uid: deviceUid, platform: 'bench', name: deviceUid, fcmToken: 'x' } },
  });
  return { token: data.accessToken, userId: data.user.id, deviceUid };
}

/** Pushes a changeset. */
export function push(baseUrl: string, token: string, body: unknown) {
  return call<PushResponseWire>(baseUrl, 'POST', '/api/sync/push', { token, body });
}

/** Pulls one page after `cursor`. */
export function pull(baseUrl: string, token: string, cursor: string | undefined, limit: number) {
  const q = new URLSearchParams({ limit: String(limit) });
  if (cursor) q.set('cursor', cursor);
  return call<PullResponseWire>(baseUrl, 'GET', `/api/sync/changes?${q}`, { token });
}

/** Pulls until hasMore is false; returns the pages' rows and the final cursor. */
export async function pullAll(baseUrl: string, token: string, cursor: string | undefined, limit: number) {
  const pages: PullResponseWire[] = [];
  let next = cursor;
  for (;;) {
    const page = await pull(baseUrl, token, next, limit);
    pages.push(page);
    next = page.nextCursor;
    if (!page.hasMore) return { pages, cursor: next };
  }
}
