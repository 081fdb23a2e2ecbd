import { client } from './client.js';

/** A signed-in device of this account, as GET /api/auth/devices lists it. */
export interface DeviceView {
  readonly uid: string;
  readonly platform: string;
  readonly name: string | null;
  readonly lastSeenAt: string | null;
  readonly createdAt: string;
  readonly current: boolean;
}

let bearer: string | undefined;

/**
 * The fetch the SDK is given: unchanged, except that it remembers the Authorization header of the
 * SDK's last request. The SDK (this version) has no device routes, so the Devices screen borrows
 * the SDK's current access token for them instead of keeping tokens of its own.
 */
export const rememberingFetch: typeof fetch = (input, init) => {
  const auth = new Headers(init?.headers).get('authorization');
  if (auth) bearer = auth;
  return globalThis.fetch(input, init);
};

async function accountRequest<T>(baseUrl: string, method: 'GET' | 'DELETE', path: string): Promise<T> {
  const send = (): Promise<Response> =>
    globalThis.fetch(`${baseUrl}${path}`, { method, headers: bearer ? { authorization: bearer } : {} });
  let res = bearer ? await send() : undefined;
  if (!res || res.status === 401) {
    // No token seen yet, or it expired: one sync round makes the SDK refresh it, then try once more.
    await client.sync();
    res = await send();
  }
  const body = (await res.json()) as { data?: T; error?: { message?: string } };
  if (!res.ok || body.data === undefined) throw new Error(body.error?.message ?? `${method} ${path} failed (${res.status})`);
  return body.data;
}

/** Device routes the SDK does not offer yet: list and revoke. */
export const accountApi = {
  async devices(baseUrl: string): Promise<DeviceView[]> {
    return (await accountRequest<{ devices: DeviceView[] }>(baseUrl, 'GET', '/api/auth/devices')).devices;
  },
  async revoke(baseUrl: string, uid: string): Promise<void> {
    await accountRequest(baseUrl, 'DELETE', `/api/auth/devices/${encodeURIComponent(uid)}`);
  },
};
