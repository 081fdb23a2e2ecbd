import { ApiError, kindOfStatus, parseRetryAfter } from './api-error.js';
import type { WireErrorEnvelope, WireSuccessEnvelope } from '../wire.js';

/** The access token and how to renew it; the auth module provides both. */
export interface TokenSource {
  /** The current access token, if signed in. */
  accessToken(): string | undefined;
  /**
   * Renews the access token once (the refresh token, with the device uid). Resolves true when a
   * new token is stored, false when the session is over (the caller then signs out); throws an
   * `ApiError` of a transient kind when the server could not be reached.
   */
  renew(): Promise<boolean>;
  /** Called when the server says the session is over; signs the device out. */
  sessionEnded(error: ApiError): Promise<void>;
}

/** One request: method, path (with query), optional JSON body, and whether it carries the token. */
export interface ApiRequest {
  readonly method: 'GET' | 'POST' | 'DELETE' | 'PATCH';
  readonly path: string;
  readonly body?: unknown;
  readonly auth: boolean;
}

/**
 * Sends requests to the API and unwraps the envelope: `data` on success, an `ApiError` otherwise.
 * An expired access token (401 TOKEN_EXPIRED) is renewed once and the request repeated once; a
 * session the server ended (any other 401, 403, or a refused renewal) signs the device out.
 */
export class Transport {
  constructor(
    private readonly baseUrl: string,
    private readonly fetchFn: typeof fetch,
    private readonly tokens: TokenSource,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Sends `req` and returns the envelope's `data`. */
  async send<T>(req: ApiRequest): Promise<T> {
    try {
      return await this.#once<T>(req);
    } catch (error) {
      if (!(error instanceof ApiError) || !req.auth || error.status !== 401 || error.code !== 'TOKEN_EXPIRED') {
        if (error instanceof ApiError && req.auth && error.kind === 'signed-out') await this.tokens.sessionEnded(error);
        throw error;
      }
    }
    const renewed = await this.tokens.renew();
    if (!renewed) {
      const ended = new ApiError('signed-out', 401, 'REFRESH_INVALID', 'the session ended: sign in again');
      await this.tokens.sessionEnded(ended);
      throw ended;
    }
    try {
      return await this.#once<T>(req);
    } catch (error) {
      if (error instanceof ApiError && error.kind === 'signed-out') await this.tokens.sessionEnded(error);
      throw error;
    }
  }

  async #once<T>(req: ApiRequest): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    if (req.auth) {
      const token = this.tokens.accessToken();
      if (!token) throw new ApiError('signed-out', 401, 'UNAUTHORIZED', 'not signed in');
      headers.authorization = `Bearer ${token}`;
    }
    let res: Response;
    try {
      res = await this.fetchFn(`${this.baseUrl}${req.path}`, {
        method: req.method,
        headers,
        ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) }),
      });
    } catch (error) {
      throw new ApiError('network', 0, 'NETWORK_ERROR', `${req.method} ${req.path}: ${error instanceof Error ? error.message : String(error)}`);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (error) {
      throw new ApiError('network', 0, 'NETWORK_ERROR', `${req.method} ${req.path}: the answer broke off (${String(error)})`);
    }
    // What came back is not trusted: either envelope of the wire, or anything else (a proxy's page).
    let body: (Partial<Omit<WireSuccessEnvelope<T>, 'success'>> & { success?: unknown; error?: Partial<Record<keyof WireErrorEnvelope['error'], unknown>> }) | undefined;
    try {
      body = text === '' ? undefined : (JSON.parse(text) as typeof body);
    } catch {
      body = undefined;
    }
    if (res.ok && body?.success === true) return body.data as T;
    const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), this.now());
    if (res.ok) throw new ApiError('server', res.status, 'BAD_RESPONSE', `${req.method} ${req.path}: not a success envelope`, retryAfterMs);
    const code = typeof body?.error?.code === 'string' ? body.error.code : `HTTP_${res.status}`;
    const message = typeof body?.error?.message === 'string' ? body.error.message : `${req.method} ${req.path} answered ${res.status}`;
    throw new ApiError(kindOfStatus(res.status), res.status, code, message, retryAfterMs);
  }
}
