import { parse as pgliteParse, protocol, type messages as messages_, type PGlite, type Results } from '@electric-sql/pglite';

type BackendMessage = Awaited<ReturnType<PGlite['execProtocol']>>['messages'][number];
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import { Mutex } from 'async-mutex';
import { answerIndex, type BatchConnection, type BatchPart } from './batch-connection.js';
import { PostgresFamilyDialect, TransactionalDriver } from './transactional-driver.js';

/** The part of a PGlite instance the driver uses (structural, so tests may pass a stand-in). */
export type PGliteLike = Pick<PGlite, 'query' | 'close' | 'execProtocol' | 'parsers' | 'serializers'>;

/** At most this many statement texts are kept prepared in the session; later new texts run unprepared. */
const MAX_PREPARED = 1000;

/** One message buffer of several protocol messages (PGlite runs it in one call). */
function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * PGlite's single session seen as a Kysely connection. A parameterized statement is parsed and
 * planned once, as a named prepared statement of the session, and then only bound and executed,
 * in one protocol call: PGlite's own `query` parses (and plans) every text at every call, in
 * several calls into WebAssembly, which was most of an embedded push's cost (the push prefetch is
 * a wide UNION). Values are serialized and rows parsed by PGlite's own type handlers, as `query` does.
 */
class PGliteConnection implements BatchConnection {
  /** Statement text → its name and parameter type OIDs in the session. */
  readonly #prepared = new Map<string, { name: string; types: number[] }>();

  constructor(private readonly pg: PGliteLike) {}

  async #prepare(text: string): Promise<{ name: string; types: number[] } | null> {
    const known = this.#prepared.get(text);
    if (known !== undefined) return known;
    if (this.#prepared.size >= MAX_PREPARED) return null;
    const name = `calsync_${this.#prepared.size + 1}`;
    const { serialize } = protocol;
    const described = await this.pg.execProtocol(
      concat([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]),
    );
    const statement = { name, types: pgliteParse.parseDescribeStatementResults(described.messages) };
    this.#prepared.set(text, statement);
    return statement;
  }

  async #run<R>(text: string, parameters: readonly unknown[]): Promise<Results<R>> {
    // A text without parameters runs as a simple query, which may hold several statements (a
    // migration's, say): it answers with its last result.
    if (parameters.length === 0) return this.#rows<R>((await this.pg.execProtocol(protocol.serialize.query(text))).messages);
    const statement = await this.#prepare(text);
    if (statement === null) return this.pg.query<R>(text, [...parameters]);
    const { serialize } = protocol;
    const { messages } = await this.pg.execProtocol(concat([...this.#execute(statement, parameters), serialize.sync()]));
    return this.#rows<R>(messages);
  }

  /** Bind, describe and execute messages of a prepared statement with `parameters`, serialized by PGlite's handlers for its types. */
  #execute(statement: { name: string; types: number[] }, parameters: readonly unknown[]): Uint8Array[] {
    const values = parameters.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = this.pg.serializers[statement.types[i]!];
      return serializer ? serializer(value) : String(value);
    });
    const { serialize } = protocol;
    return [serialize.bind({ statement: statement.name, values }), serialize.describe({ type: 'P' }), serialize.execute({})];
  }

  /**
   * A batch in one `execProtocol` call: every part as extended-protocol messages (a part
   * with parameters through its prepared statement, one without as an unnamed one; each part is
   * one statement), one Sync at the end. After a failing part the engine skips the rest up to the
   * Sync, and the call throws that part's error. Answers with the rows of part `answer` (the last by default).
   */
  async runBatch<R>(parts: readonly BatchPart[], answer?: number): Promise<QueryResult<R>> {
    return this.#answer(await this.#batch<R>(parts, answerIndex(parts, answer)));
  }

  async #batch<R>(parts: readonly BatchPart[], wanted: number): Promise<Results<R>> {
    const { serialize } = protocol;
    const messages: Uint8Array[] = [];
    let answer: Results<R> | undefined;
    /** The index of the first part whose messages are gathered. */
    let first = 0;
    const run = async (upTo: number): Promise<void> => {
      if (messages.length > 0) {
        const { messages: answers } = await this.pg.execProtocol(concat([...messages.splice(0), serialize.sync()]));
        if (wanted >= first && wanted < upTo) answer = this.#rows<R>(answers, wanted - first);
      }
      first = upTo;
    };
    for (const [i, part] of parts.entries()) {
      if (part.parameters.length === 0) {
        messages.push(serialize.parse({ text: part.sql }), serialize.bind({}), serialize.describe({ type: 'P' }), serialize.execute({}));
        continue;
      }
      const statement = await this.#prepare(part.sql);
      if (statement === null) {
        // Past the cap of prepared texts: run what is gathered, then this part on its own.
        await run(i);
        const alone = await this.pg.query<R>(part.sql, [...part.parameters]);
        if (i === wanted) answer = alone;
        first = i + 1;
        continue;
      }
      messages.push(...this.#execute(statement, part.parameters));
    }
    await run(parts.length);
    return answer!;
  }

  /**
   * The rows and command of one executed statement (of several, the one at index `statement`,
   * else the last one's), each value through PGlite's parser for its type (as `query` does).
   * PGlite's own `parseResults` copies every parser of the session into a new object at each call,
   * which was the largest single JavaScript cost of an embedded push.
   */
  #rows<R>(messages: readonly BackendMessage[], statement?: number): Results<R> {
    let fields: { name: string; parse: ((value: string, type: number) => unknown) | undefined; type: number }[] = [];
    const rows: R[] = [];
    let command: string | undefined;
    let affectedRows = 0;
    /** The statement of the call the next message belongs to (each ends with its completion). */
    let at = 0;
    for (const message of messages) {
      const of = at;
      if (message.name === 'commandComplete' || message.name === 'emptyQuery') at += 1;
      if (statement !== undefined && of !== statement) continue;
      if (message.name === 'rowDescription') {
        rows.length = 0; // a text of several statements answers with its last one's rows
        fields = (message as messages_.RowDescriptionMessage).fields.map((f) => ({ name: f.name, type: f.dataTypeID, parse: this.pg.parsers[f.dataTypeID] }));
      } else if (message.name === 'dataRow') {
        const row: Record<string, unknown> = {};
        (message as messages_.DataRowMessage).fields.forEach((value, i) => {
          const field = fields[i]!;
          row[field.name] = value === null ? null : field.parse ? field.parse(value, field.type) : value;
        });
        rows.push(row as R);
      } else if (message.name === 'commandComplete') {
        const words = (message as messages_.CommandCompleteMessage).text.split(' ');
        command = words[0];
        const count = Number.parseInt(words.at(-1)!, 10);
        if (['INSERT', 'UPDATE', 'DELETE', 'COPY', 'MERGE'].includes(command!) && !Number.isNaN(count)) affectedRows = count;
      }
    }
    return { rows, fields: fields.map((f) => ({ name: f.name, dataTypeID: f.type })), command, affectedRows };
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.#answer(await this.#run<R>(query.sql, query.parameters));
  }

  #answer<R>(result: Results<R>): QueryResult<R> {
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
 * queue is what serializes them), each caller after one turn of the event loop (see
 * `acquireConnection`). Hand-written because kysely-pglite loses updates under concurrent use.
 */
class PGliteDriver extends TransactionalDriver {
  readonly #lock = new Mutex();
  readonly #connection: PGliteConnection;
  #release: (() => void) | null = null;
  #waiting = 0;

  constructor(private readonly pg: PGliteLike) {
    super();
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
      // One turn of the event loop first. PGlite runs each call synchronously, so without it a
      // unit would run from BEGIN to COMMIT before the server reads another request, and pushes of
      // one user would never wait for each other: the requests that arrived meanwhile are read
      // now, and the sync service commits those of one user as one group (one BEGIN, lock,
      // prefetch and COMMIT for all), as it does on PostgreSQL, where they queue on the lock.
      await new Promise((resolve) => setImmediate(resolve));
      this.#release = await this.#lock.acquire();
    } finally {
      this.#waiting--;
    }
    return this.#connection;
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

/** Kysely dialect for PGlite: PostgreSQL's compiler, adapter and introspector over `PGliteDriver`. */
export class PGliteDialect extends PostgresFamilyDialect {
  #driver: PGliteDriver | null = null;

  constructor(private readonly pg: PGliteLike) {
    super();
  }

  createDriver(): Driver {
    this.#driver = new PGliteDriver(this.pg);
    return this.#driver;
  }

  /** The session's use (for the pool metrics); idle before Kysely made the driver. */
  stats(): ConnectionStats {
    return this.#driver?.stats() ?? { inUse: 0, waiting: 0, total: 1 };
  }
}
