import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet from 'helmet';

/** What helmet's default middleware does to every answer: headers it sets (in its order) and headers it removes. */
export interface SecurityHeaders {
  readonly set: readonly (readonly [name: string, value: string])[];
  readonly removed: readonly string[];
}

/**
 * Runs helmet's default middleware once against a recording response and returns what it did. Its
 * default headers depend on nothing in the request, so every answer gets the same ones; helmet
 * stays the one source of their names and values.
 */
export function helmetDefaults(): SecurityHeaders {
  const set: [string, string][] = [];
  const removed: string[] = [];
  const recorder = {
    setHeader(name: string, value: unknown) {
      set.push([name, String(value)]);
    },
    removeHeader(name: string) {
      removed.push(name);
    },
  };
  let called = false;
  helmet()({} as never, recorder as never, () => (called = true));
  if (!called) throw new Error('helmet did not finish synchronously: its default headers cannot be precomputed');
  return { set, removed };
}

/**
 * helmet's default security headers (content security policy, HSTS, nosniff, frame and referrer
 * policies, …) on every answer, written on the raw response as helmet writes them (so answers that
 * bypass Fastify's reply, such as notification streams, carry them too). They are worked out once
 * at start-up (`helmetDefaults`): running helmet's chain of eleven middlewares for every request
 * cost a few microseconds per push for the same twelve headers each time. The web client and the
 * docs page adjust the policy of their own answers (`onSend`).
 */
export const securityHeadersPlugin = fp(
  async (app: FastifyInstance) => {
    const { set, removed } = helmetDefaults();
    app.addHook('onRequest', (_request, reply, done) => {
      const res = reply.raw;
      for (const [name, value] of set) res.setHeader(name, value);
      for (const name of removed) res.removeHeader(name);
      done();
    });
  },
  { name: 'calsync-security-headers' },
);
