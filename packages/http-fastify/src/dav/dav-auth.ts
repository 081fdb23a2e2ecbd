import type { AppPasswordIdentity, AppPasswordService } from '@calsync/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Failed Basic sign-ins allowed per account and per client address in a window, before 429. */
export interface BasicLimits {
  readonly perAccount: number;
  readonly perAddress: number;
  readonly windowMs: number;
}

/** The default limits: 10 failures per account, 30 per address, in 15 minutes. */
export const DEFAULT_BASIC_LIMITS: BasicLimits = { perAccount: 10, perAddress: 30, windowMs: 15 * 60_000 };

/** Failures counted per key in fixed windows (per node: the counters live in this process). */
class FailureCounter {
  readonly #hits = new Map<string, { count: number; until: number }>();
  constructor(private readonly windowMs: number) {}

  /** Milliseconds until `key` may try again when it has reached `max` failures, else 0. */
  blockedFor(key: string, max: number, now: number): number {
    const h = this.#hits.get(key);
    if (h === undefined || h.until <= now) return 0;
    return h.count >= max ? h.until - now : 0;
  }

  fail(key: string, now: number): void {
    const h = this.#hits.get(key);
    if (h === undefined || h.until <= now) this.#hits.set(key, { count: 1, until: now + this.windowMs });
    else h.count += 1;
    if (this.#hits.size > 100_000) for (const [k, v] of this.#hits) if (v.until <= now) this.#hits.delete(k);
  }
}

/** The user name and password of an `Authorization: Basic` header, or null. */
export function basicCredentials(header: string | undefined): { username: string; password: string } | null {
  if (header === undefined || !/^Basic\s+/i.test(header)) return null;
  const decoded = Buffer.from(header.replace(/^Basic\s+/i, ''), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Why a Basic sign-in did not pass: no or wrong credentials (401), or too many failures (429, with seconds to wait). */
export type BasicRefusal = { readonly status: 401 } | { readonly status: 429; readonly retryAfterSeconds: number };

/**
 * HTTP Basic sign-in of calendar apps with app passwords. A failure counts against the account
 * (the user name) and the client address; past the limits both get 429 with Retry-After until the
 * window ends, even with the right password. A failure is logged with the user name and address,
 * never the password.
 */
export class BasicAuthenticator {
  readonly #failures: FailureCounter;

  constructor(
    private readonly appPasswords: Pick<AppPasswordService, 'authenticate'>,
    private readonly limits: BasicLimits = DEFAULT_BASIC_LIMITS,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.#failures = new FailureCounter(limits.windowMs);
  }

  async authenticate(request: FastifyRequest): Promise<AppPasswordIdentity | BasicRefusal> {
    const credentials = basicCredentials(request.headers.authorization);
    const now = this.now();
    const address = `ip:${request.ip}`;
    const account = credentials === null ? null : `account:${credentials.username.trim().toLowerCase()}`;
    const wait = Math.max(this.#failures.blockedFor(address, this.limits.perAddress, now), account === null ? 0 : this.#failures.blockedFor(account, this.limits.perAccount, now));
    if (wait > 0) return { status: 429, retryAfterSeconds: Math.ceil(wait / 1000) };
    if (credentials === null) return { status: 401 };
    const identity = await this.appPasswords.authenticate(credentials.username, credentials.password);
    if (identity !== null) return identity;
    this.#failures.fail(address, now);
    if (account !== null) this.#failures.fail(account, now);
    request.log.warn({ username: credentials.username, address: request.ip }, 'CalDAV sign-in failed');
    return { status: 401 };
  }
}

/** Answers a refused sign-in: 401 with the Basic challenge, or 429 with Retry-After. */
export function refuse(reply: FastifyReply, refusal: BasicRefusal): FastifyReply {
  if (refusal.status === 429) return reply.code(429).header('retry-after', String(refusal.retryAfterSeconds)).type('text/plain; charset=utf-8').send('too many failed sign-ins\n');
  return reply.code(401).header('www-authenticate', 'Basic realm="calsync", charset="UTF-8"').type('text/plain; charset=utf-8').send('sign in with your phone number or e-mail address and an app password\n');
}
