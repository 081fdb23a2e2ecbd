import type { CompiledQuery, DatabaseConnection, Driver, QueryResult } from 'kysely';
import pg from 'pg';
import { answerIndex, type BatchConnection, type BatchPart } from './batch-connection.js';
import { boundedClient, type BoundedClient } from './statement-timeout.js';
import { PostgresFamilyDialect, TransactionalDriver } from './transactional-driver.js';

/** At most this many statement texts get a name on one connection; later new texts run unnamed (bounded memory). */
const MAX_NAMED = 1000;

/**
 * A parameter this long (an array of at least this many values) makes its part run on its own with
 * bound values: written as a literal it is escaped twice (each element inside the array text, then
 * the whole text), which cost about 14 ms of a 1,000-item push's ~100 ms of JavaScript, while the
 * round trip it saves is well under a millisecond.
 */
const BULKY_ARRAY = 32;

/**
 * A text parameter this long runs on its own with bound values too: node-pg's escapeLiteral builds
 * the literal one character at a time, and the receipts of a 1,000-item push (one JSON text of
 * about 150 KB) cost about 2 ms that way, against a round trip well under a millisecond.
 */
const BULKY_TEXT = 8192;

const isBulky = (value: unknown): boolean => (Array.isArray(value) && value.length >= BULKY_ARRAY) || (typeof value === 'string' && value.length >= BULKY_TEXT);

/** node-pg's serialisation of a parameter value (arrays as `{…}` text, objects as JSON), which its types do not declare. */
const { prepareValue } = (pg as unknown as { utils: { prepareValue(value: unknown): unknown } }).utils;

/** A parameter value as an SQL literal through node-pg's own serialisation and escaping: `EXECUTE` in a simple query takes no bound values. */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  const prepared = prepareValue(value);
  return prepared === null ? 'NULL' : pg.escapeLiteral(String(prepared));
}

/** What a server connection has prepared, kept while the connection lives (its pool client is the key). */
interface Session {
  /** Protocol-level prepared statements (node-pg prepares a named query config once per connection). */
  readonly named: Map<string, string>;
  /** SQL-level PREPAREd statements of batches (node-pg does not know them, so their own names). */
  readonly batch: Map<string, string>;
}

const affects = (command: string | null | undefined): boolean => command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';

function kyselyResult<R>(result: pg.QueryResult): QueryResult<R> {
  return affects(result.command) ? { rows: result.rows as R[], numAffectedRows: BigInt(result.rowCount ?? 0) } : { rows: (result.rows ?? []) as R[] };
}

/** A multi-statement simple query answers with an array of results; Kysely reads one, the last. */
const last = (result: pg.QueryResult | pg.QueryResult[]): pg.QueryResult => (Array.isArray(result) ? result[result.length - 1]! : result);

/**
 * One pooled node-pg connection. A parameterized statement runs as a named prepared statement of
 * the connection (parsed and planned once per connection, not at every execution); a text without
 * parameters as a simple query (several statements allowed: the last one answers). `runBatch`
 * sends every part in one simple query, which answers one result per statement: a parameterized
 * part as `EXECUTE name(literals)` of a
 * statement PREPAREd once on this connection (a prepared statement outlives the transaction it
 * was made in, rolled back or not), its values as literals written by node-pg's own serialisation
 * and escaping. A part with a bulky parameter (`BULKY_ARRAY`, `BULKY_TEXT`) runs on its own, its values bound.
 * Names are per connection.
 */
export class PgConnection implements BatchConnection {
  constructor(
    readonly client: BoundedClient,
    private readonly session: Session,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const { sql, parameters } = query;
    if (parameters.length === 0) return kyselyResult<R>(last(await this.client.query(sql)));
    const name = this.#name(sql);
    return kyselyResult<R>(last(await this.client.query(sql, [...parameters], name)));
  }

  async runBatch<R>(parts: readonly BatchPart[], answer?: number): Promise<QueryResult<R>> {
    const wanted = answerIndex(parts, answer);
    const texts: string[] = [];
    /** One result per part run so far, in order (each part is one statement). */
    const results: pg.QueryResult[] = [];
    const flush = async (): Promise<void> => {
      if (texts.length === 0) return;
      const result = await this.client.query(texts.join(';\n'));
      results.push(...(Array.isArray(result) ? result : [result]));
      texts.length = 0;
    };
    for (const part of parts) {
      if (part.parameters.length === 0) {
        texts.push(part.sql);
        continue;
      }
      const bulky = part.parameters.some(isBulky);
      const name = bulky ? undefined : await this.#prepared(part.sql);
      if (name === undefined) {
        // A part with bulky values, or past the cap of named texts: send what is queued, then this
        // part on its own as a protocol-level (prepared when it may be named) statement.
        await flush();
        results.push(last(await this.client.query(part.sql, [...part.parameters], this.#name(part.sql))));
        continue;
      }
      texts.push(`execute ${name}(${part.parameters.map(sqlLiteral).join(', ')})`);
    }
    await flush();
    if (results.length !== parts.length) throw new Error(`a batch of ${parts.length} statements answered with ${results.length} results`);
    return kyselyResult<R>(results[wanted]!);
  }

  /** The name of the batch statement `text` on this connection, PREPAREd on first use (on its own, so a failure leaves no name behind); undefined past the cap. */
  async #prepared(text: string): Promise<string | undefined> {
    const known = this.session.batch.get(text);
    if (known !== undefined || this.session.batch.size >= MAX_NAMED) return known;
    const name = `calsync_b${this.session.batch.size + 1}`;
    await this.client.query(`prepare ${name} as ${text}`);
    this.session.batch.set(text, name);
    return name;
  }

  /** The protocol-level name of `text` on this connection (made on first use), or undefined past the cap. */
  #name(text: string): string | undefined {
    const names = this.session.named;
    let name = names.get(text);
    if (name === undefined && names.size < MAX_NAMED) {
      name = `calsync_${names.size + 1}`;
      names.set(text, name);
    }
    return name;
  }

  // eslint-disable-next-line require-yield -- streaming is not offered; the generator only throws
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streamQuery is not supported by the pg driver');
  }
}

/**
 * A Kysely driver over a node-pg pool whose connections run batches (`PgConnection`), each
 * statement bounded by `statementTimeoutMs` (see statement-timeout.ts).
 */
class PgDriver extends TransactionalDriver {
  /** Per server connection: what it has prepared (a pool client is reused for the connection's life). */
  readonly #sessions = new WeakMap<pg.PoolClient, Session>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly statementTimeoutMs: number,
  ) {
    super();
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<PgConnection> {
    const client = await this.pool.connect();
    let session = this.#sessions.get(client);
    if (session === undefined) {
      session = { named: new Map(), batch: new Map() };
      this.#sessions.set(client, session);
    }
    return new PgConnection(boundedClient(client, this.statementTimeoutMs), session);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PgConnection).client.release();
  }

  async destroy(): Promise<void> {
    await this.pool.end();
  }
}

/** Kysely dialect over a node-pg pool: PostgreSQL's compiler, adapter and introspector over `PgDriver`. */
export class PgDialect extends PostgresFamilyDialect {
  constructor(
    private readonly pool: pg.Pool,
    private readonly statementTimeoutMs = 0,
  ) {
    super();
  }

  createDriver(): Driver {
    return new PgDriver(this.pool, this.statementTimeoutMs);
  }
}
