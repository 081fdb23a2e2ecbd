import { DomainError } from '@calsync/domain';
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryCompiler, QueryResult, TransactionSettings } from 'kysely';
import { asBatchConnection, type BatchConnection, type BatchPart } from './batch-connection.js';

/** Seconds a client is told to wait (Retry-After) after DATABASE_UNAVAILABLE. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/**
 * SQLSTATEs that mean "this connection or the server is gone", not "this statement is wrong":
 * class 08 (connection exception), 57P01..57P03 (terminated by an administrator, crash shutdown,
 * cannot connect now: starting up or shutting down), 53300 (too many connections).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300)$/;
/** Socket errors of the driver. */
const SOCKET_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/**
 * node-pg reports a lost or closed connection with these messages and no code (pg 8's client.js and
 * pg-pool); matched only here, where a driver error becomes one of ours.
 */
const LOST_CONNECTION = /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect)/;

/** True when `error` (from node-pg) means the database could not be reached, not that a statement failed. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DomainError) return error.code === 'DATABASE_UNAVAILABLE';
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_STATES.test(code) || SOCKET_CODES.has(code))) return true;
  return typeof message === 'string' && LOST_CONNECTION.test(message);
}

/** The error a unit of work fails with when its connection is lost or cannot be had. */
export function databaseUnavailable(cause: unknown): DomainError {
  const error = new DomainError('DATABASE_UNAVAILABLE', 'The database could not be reached; retry later', undefined, DATABASE_RETRY_AFTER_SECONDS);
  (error as { cause?: unknown }).cause = cause;
  return error;
}

function mapped(error: unknown): unknown {
  return !(error instanceof DomainError) && isDatabaseUnavailable(error) ? databaseUnavailable(error) : error;
}

/** A connection whose failures that mean "database gone" become DATABASE_UNAVAILABLE, its batches' too. */
class MappingConnection implements BatchConnection {
  constructor(readonly inner: BatchConnection) {}

  async runBatch<R>(parts: readonly BatchPart[], answer?: number): Promise<QueryResult<R>> {
    try {
      return await this.inner.runBatch<R>(parts, answer);
    } catch (error) {
      throw mapped(error);
    }
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return await this.inner.executeQuery<R>(query);
    } catch (error) {
      throw mapped(error);
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/** Wraps a driver: acquiring a connection and every statement (BEGIN, COMMIT, ROLLBACK included) map their errors. */
class MappingDriver implements Driver {
  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    try {
      return new MappingConnection(asBatchConnection(await this.inner.acquireConnection()));
    } catch (error) {
      throw mapped(error);
    }
  }

  // The inner driver runs BEGIN/COMMIT/ROLLBACK through the connection it is given: the mapping one.
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.savepoint?.(connection, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.rollbackToSavepoint?.(connection, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.releaseSavepoint?.(connection, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection((connection as MappingConnection).inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/**
 * A Kysely dialect whose driver turns "the database is gone" failures (connection refused, lost,
 * terminated by the server) into DomainError DATABASE_UNAVAILABLE, which the HTTP layer answers
 * with 503 and Retry-After. Every other error passes through unchanged.
 */
export function withUnavailableMapping(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new MappingDriver(dialect.createDriver()),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  };
}
