import type pg from 'pg';

/**
 * The error of a statement that got no answer in time. Its code is a socket code, so the unit of
 * work fails with DATABASE_UNAVAILABLE (503, Retry-After) like any other lost connection.
 */
export class StatementTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(timeoutMs: number) {
    super(`the database did not answer within ${timeoutMs} ms (DATABASE_STATEMENT_TIMEOUT_MS)`);
    this.name = 'StatementTimeoutError';
  }
}

/** VACUUM (the maintenance job's) may take long on a large table and holds no lock a request waits for. */
const LONG_STATEMENT = /^\s*vacuum\b/i;

/** A checked-out pool client whose statements are bounded in time (see `boundedClient`). */
export interface BoundedClient {
  /** Runs `text` (with `values`, as the prepared statement `name` when given); a simple query of several statements answers with every result. */
  query(text: string, values?: unknown[], name?: string): Promise<pg.QueryResult | pg.QueryResult[]>;
  /** Back to the pool; a client whose statement timed out is ended instead. */
  release(): void;
}

/**
 * `client` with a client-side bound on every statement: a statement without an answer after
 * `timeoutMs` (0: no bound) fails with `StatementTimeoutError`, and the connection is cut and
 * dropped from the pool when it is released (its late answer would otherwise be read as the
 * answer of the next statement). A network that drops packets thus fails requests within the
 * bound instead of hanging them; the server-side `statement_timeout` cannot help there, since its
 * answer never arrives. Connections made after the network is back work as before.
 */
export function boundedClient(client: pg.PoolClient, timeoutMs: number): BoundedClient {
  let broken: StatementTimeoutError | null = null;
  return {
    query(text, values, name) {
      if (broken !== null) return Promise.reject(broken);
      const running = (values === undefined ? client.query(text) : client.query({ text, values, ...(name === undefined ? {} : { name }) })) as Promise<
        pg.QueryResult | pg.QueryResult[]
      >;
      if (timeoutMs <= 0 || LONG_STATEMENT.test(text)) return running;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          broken = new StatementTimeoutError(timeoutMs);
          running.catch(() => {});
          // The socket goes now: the statement in flight fails, and nothing more is read from it.
          (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
          reject(broken);
        }, timeoutMs);
        running.then(
          (result) => {
            clearTimeout(timer);
            resolve(result);
          },
          (error: unknown) => {
            clearTimeout(timer);
            reject(error);
          },
        );
      });
    },
    // Released with the error, pg-pool ends the client instead of keeping it for reuse.
    release: () => client.release(broken ?? undefined),
  };
}
