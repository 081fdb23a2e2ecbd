import pg from 'pg';
import { batchOf, parameterLiteral, type StatementBatch } from './statement-batch.js';

/** At most this many distinct statement texts get a name; later new texts run unnamed (bounded memory). */
const MAX_NAMED = 1000;

/**
 * Names for statement texts, `<prefix><n>`, one per text for the whole process (pg refuses a name
 * reused for another text on a connection), at most MAX_NAMED of them; undefined past the cap.
 */
function statementNames(prefix: string): (text: string) => string | undefined {
  const names = new Map<string, string>();
  return (text) => {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_NAMED) {
      name = `${prefix}${names.size + 1}`;
      names.set(text, name);
    }
    return name;
  };
}

/** The name under which a parameterized statement is prepared (protocol level), or undefined when it should run unnamed. */
export const statementName = statementNames('calsync_');

/**
 * The name of a batch statement's SQL-level PREPARE. Its own names: node-pg keeps track of the
 * statements it prepared itself and would try to prepare one of these a second time.
 */
const batchStatementName = statementNames('calsync_b');

type BaseQuery = (...args: unknown[]) => unknown;

/**
 * A pg Client that runs every parameterized text query as a named prepared statement: PostgreSQL
 * parses and plans each statement text once per connection instead of at every execution, which
 * is most of the server-side cost of the small, fixed-shape queries of a sync round trip (their
 * shapes never depend on the number of items: arrays travel as one parameter). Kysely calls
 * `query(text, values)`, which is the only form rewritten; everything else passes through, except
 * that a multi-statement text answers with its last result, and that a `StatementBatch` (see
 * statement-batch.ts) runs as one simple query: each parameterized statement as
 * `EXECUTE name(literals)` of a statement PREPAREd once per connection (a prepared statement
 * outlives the transaction it was made in, rolled back or not), so the batch costs one round trip
 * and keeps the once-planned statements.
 */
export class PreparingClient extends pg.Client {
  /** Names of the statements PREPAREd on this connection for batches (short keys: a text's hash is computed once, in batchStatementName). */
  readonly #batchPrepared = new Set<string>();

  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // A client emits 'error' when its connection dies (server restart, pg_terminate_backend). The
    // pool listens only while the client is idle; checked out, an unheard 'error' would end the
    // process. The query in flight fails on its own (and becomes DATABASE_UNAVAILABLE), and the
    // pool drops the client when it comes back unusable, so the event itself needs nothing more.
    this.on('error', () => {});
    const base = this.query.bind(this) as (...args: unknown[]) => unknown;
    this.query = ((config: unknown, values?: unknown, callback?: unknown) => {
      if (callback !== undefined) return base(config, values, callback);
      const batch = typeof config === 'string' ? batchOf(config, values as unknown[] | undefined) : null;
      if (batch !== null) return this.#runBatch(batch, base);
      if (typeof config === 'string' && Array.isArray(values) && values.length > 0) {
        const name = statementName(config);
        if (name !== undefined) return base({ name, text: config, values });
      }
      const pending = values === undefined ? base(config) : base(config, values);
      if (typeof config !== 'string' || !(pending instanceof Promise)) return pending;
      // A multi-statement text answers with its last statement's result (Kysely reads one result).
      return (pending as Promise<pg.QueryResult | pg.QueryResult[]>).then((r) => (Array.isArray(r) ? r[r.length - 1] : r));
    }) as pg.Client['query'];
  }

  async #runBatch(batch: StatementBatch, base: BaseQuery): Promise<pg.QueryResult> {
    const texts: string[] = [];
    let last: pg.QueryResult | undefined;
    const flush = async (): Promise<void> => {
      if (texts.length === 0) return;
      const r = (await base(texts.join(';\n'))) as pg.QueryResult | pg.QueryResult[];
      texts.length = 0;
      last = Array.isArray(r) ? r[r.length - 1] : r;
    };
    for (const part of batch.parts) {
      if (part.parameters.length === 0) {
        texts.push(part.sql);
        continue;
      }
      const name = batchStatementName(part.sql);
      if (name === undefined) {
        // Past the cap of named texts: send what is queued, then this statement on its own.
        await flush();
        last = (await base(part.sql, [...part.parameters])) as pg.QueryResult;
        continue;
      }
      if (!this.#batchPrepared.has(name)) {
        await base(`prepare ${name} as ${part.sql}`);
        this.#batchPrepared.add(name);
      }
      texts.push(`execute ${name}(${part.parameters.map(parameterLiteral).join(', ')})`);
    }
    await flush();
    if (last === undefined) throw new Error('an empty statement batch');
    return last;
  }
}
