import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { FifoLock } from './fifo-lock.js';

/** The part of a PGlite instance the driver uses (structural, so tests may pass a stand-in). */
export type PGliteLike = Pick<PGlite, 'query' | 'close'>;

/** PGlite's single session seen as a Kysely connection. */
class PGliteConnection implements DatabaseConnection {
  constructor(private readonly pg: PGliteLike) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.pg.query<R>(query.sql, [...query.parameters]);
    const command = result.command?.toUpperCase();
    const changes = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
    return changes
      ? { rows: result.rows, numAffectedRows: BigInt(result.rowCount ?? result.affectedRows ?? 0) }
      : { rows: result.rows };
  }

  // eslint-disable-next-line require-yield -- streaming is not offered; the generator only throws
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streamQuery is not supported by the PGlite driver');
  }
}

/** How busy a database's connections are: in use by a query or transaction, and callers waiting for one. */
export interface ConnectionStats {
  readonly inUse: number;
  readonly waiting: number;
  /** Connections open (PGlite: its one session). */
  readonly total: number;
}

/**
 * A Kysely driver for PGlite: one connection behind a FIFO lock, so transactions serialize
 * (PGlite has one session, so advisory locks and FOR UPDATE cannot block across callers: this
 * queue is what serializes them). Hand-written because kysely-pglite loses updates under concurrent use.
 */
class PGliteDriver implements Driver {
  readonly #lock = new FifoLock();
  readonly #connection: PGliteConnection;
  #release: (() => void) | null = null;
  #waiting = 0;

  constructor(private readonly pg: PGliteLike) {
    this.#connection = new PGliteConnection(pg);
  }

  /** The one session: in use or not, and how many callers queue for it. */
  stats(): ConnectionStats {
    return { inUse: this.#release === null ? 0 : 1, waiting: this.#waiting, total: 1 };
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    this.#waiting++;
    try {
      this.#release = await this.#lock.acquire();
    } finally {
      this.#waiting--;
    }
    return this.#connection;
  }

  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const level = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    const mode = settings.accessMode ? ` ${settings.accessMode}` : '';
    await conn.executeQuery(CompiledQuery.raw(`start transaction${level}${mode}`));
  }

  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(conn: DatabaseConnection, name: string): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw(`savepoint ${quoteIdent(name)}`));
  }

  async rollbackToSavepoint(conn: DatabaseConnection, name: string): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw(`rollback to savepoint ${quoteIdent(name)}`));
  }

  async releaseSavepoint(conn: DatabaseConnection, name: string): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw(`release savepoint ${quoteIdent(name)}`));
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = null;
    release?.();
  }

  async destroy(): Promise<void> {
    const release = await this.#lock.acquire();
    try {
      await this.pg.close();
    } finally {
      release();
    }
  }
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Kysely dialect for PGlite: PostgreSQL's compiler, adapter and introspector over `PGliteDriver`. */
export class PGliteDialect implements Dialect {
  #driver: PGliteDriver | null = null;

  constructor(private readonly pg: PGliteLike) {}

  createDriver(): Driver {
    this.#driver = new PGliteDriver(this.pg);
    return this.#driver;
  }

  /** The session's use (for the pool metrics); idle before Kysely made the driver. */
  stats(): ConnectionStats {
    return this.#driver?.stats() ?? { inUse: 0, waiting: 0, total: 1 };
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }

  createAdapter(): PostgresAdapter {
    return new PostgresAdapter();
  }

  createIntrospector(db: Kysely<unknown>): PostgresIntrospector {
    return new PostgresIntrospector(db);
  }
}
