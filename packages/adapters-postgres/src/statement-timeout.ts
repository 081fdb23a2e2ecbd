import type { PostgresPool, PostgresPoolClient } from 'kysely';
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

/**
 * The pg pool as Kysely's `PostgresPool`, with a client-side bound on every statement: a statement
 * without an answer after `timeoutMs` fails with `StatementTimeoutError`, and its connection is
 * cut and dropped from the pool when it is released (its late answer would otherwise be read as
 * the answer of the next statement). A network that drops packets thus fails requests within the
 * bound instead of hanging them; the server-side `statement_timeout` cannot help there, since its
 * answer never arrives. Connections made after the network is back work as before.
 */
export function withStatementTimeout(pool: pg.Pool, timeoutMs: number): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let broken: StatementTimeoutError | null = null;
      const query = (text: string, parameters?: readonly unknown[]): Promise<pg.QueryResult> => {
        // A cursor (Kysely's streaming form) passes through unbounded.
        if (typeof text !== 'string') return (client.query as (cursor: unknown) => Promise<pg.QueryResult>)(text);
        if (broken !== null) return Promise.reject(broken);
        const running = client.query(text, (parameters ?? []) as unknown[]);
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
      };
      return {
        query: query as unknown as PostgresPoolClient['query'],
        // Released with the error, pg-pool ends the client instead of keeping it for reuse.
        release: () => client.release(broken ?? undefined),
      };
    },
    end: () => pool.end(),
  };
}
