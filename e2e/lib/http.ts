import type { ErrorEnvelopeWire, SuccessEnvelopeWire } from '@calsync/wire';
import type { AnswerRecorder } from './openapi-contract.js';

/** One HTTP answer: status, headers and the body parsed as JSON when it is JSON, else its text. */
export interface HttpAnswer<T = unknown> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
  readonly text: string;
}

/** The success envelope (docs/api.md): the wire's type. */
export type Envelope<T> = SuccessEnvelopeWire<T>;

/** The error envelope (docs/api.md): the wire's type. */
export type ErrorEnvelope = ErrorEnvelopeWire;

/** Options of one request. */
export interface RequestOptions {
  readonly token?: string;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * A thin fetch wrapper bound to the server's base URL: real HTTP over a socket, no app.inject,
 * so the e2e test sees what a client sees (headers, statuses, serialized JSON).
 */
export class HttpClient {
  /** `recorder` (optional) keeps every answer, so the run can be checked against the OpenAPI document. */
  constructor(
    private readonly baseUrl: string,
    private readonly recorder?: AnswerRecorder,
  ) {}

  /** Sends one request and reads the whole answer. */
  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<HttpAnswer<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await res.text();
    this.recorder?.record({ method, path: path.split('?')[0] ?? path, status: res.status, contentType: res.headers.get('content-type') ?? '', text });
    const isJson = (res.headers.get('content-type') ?? '').includes('json');
    return { status: res.status, headers: res.headers, text, body: (isJson && text ? JSON.parse(text) : text) as T };
  }

  /** A request whose answer must be a 2xx success envelope; returns `data` or throws with the answer. */
  async ok<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const answer = await this.request<Envelope<T>>(method, path, options);
    if (answer.status < 200 || answer.status >= 300 || answer.body.success !== true) {
      throw new Error(`${method} ${path} answered ${answer.status}: ${answer.text}`);
    }
    return answer.body.data;
  }
}
