import { CompiledQuery, type DatabaseConnection, type Kysely, type QueryResult } from 'kysely';

/** One statement of a batch: its text and its parameter values ($1, $2, …), as Kysely compiles them. */
export interface BatchPart {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

/** A statement the adapter runs: a Kysely raw query, or a fixed text with this call's values (`fixedStatement`). */
export interface Statement<R = unknown> {
  compile(db: Kysely<any>): CompiledQuery<R>; // eslint-disable-line @typescript-eslint/no-explicit-any -- any database schema
}

/**
 * A statement whose text is made once (`$1`, `$2`, … stand for `parameters` in order): nothing is
 * built or compiled per call, and the one text instance keys the connection's prepared statement.
 * For the statements of every push (the prefetch, the reservation, the set-based writes).
 */
export function fixedStatement<R = unknown>(text: string, parameters: readonly unknown[]): Statement<R> {
  return { compile: () => CompiledQuery.raw(text, [...parameters]) as CompiledQuery<R> };
}

/** A statement without parameters (BEGIN, COMMIT). */
export function rawPart(sql: string): BatchPart {
  return { sql, parameters: [] };
}

/**
 * A database connection that also runs several statements in one round trip. Both PostgreSQL
 * drivers of the adapter implement it (node-pg: `PgConnection`, PGlite: the PGlite dialect's
 * connection), and the fault mapping wraps it (`withUnavailableMapping`).
 *
 * Guarantee of `runBatch`: the parts run in order, each once, on this connection; the answer is
 * the rows of the part at index `answer` (by default the last part), so a read can travel with
 * statements after it (a COMMIT); a failing part fails the call with that part's error, and the
 * parts after it do not run (inside a transaction, which the caller then rolls back). Each part is
 * one statement; its parameters are sent as values, never spliced into its text by the caller.
 */
export interface BatchConnection extends DatabaseConnection {
  runBatch<R>(parts: readonly BatchPart[], answer?: number): Promise<QueryResult<R>>;
}

/** The index of the part a batch answers with: `answer` if given (checked), else the last. */
export function answerIndex(parts: readonly BatchPart[], answer: number | undefined): number {
  if (parts.length === 0) throw new Error('an empty statement batch');
  const at = answer ?? parts.length - 1;
  if (!Number.isInteger(at) || at < 0 || at >= parts.length) throw new Error(`a batch of ${parts.length} parts has no part ${at} to answer with`);
  return at;
}

/** `connection` as a batch connection; throws for a connection of a dialect the adapter did not make. */
export function asBatchConnection(connection: DatabaseConnection): BatchConnection {
  if (typeof (connection as Partial<BatchConnection>).runBatch !== 'function') throw new Error('the database connection cannot run statement batches');
  return connection as BatchConnection;
}

/**
 * Runs `work` on one connection of `db`'s pool (the PGlite session: behind its queue), released
 * afterwards. Throws when the dialect's connections do not run batches (a dialect the adapter did
 * not make).
 */
export function withBatchConnection<D, T>(db: Kysely<D>, work: (connection: BatchConnection) => Promise<T>): Promise<T> {
  return db.getExecutor().provideConnection((connection) => work(asBatchConnection(connection)));
}
