import pg from 'pg';

/** At most this many distinct statement texts get a name; later new texts run unnamed (bounded memory). */
const MAX_NAMED = 1000;

/** Statement text → server-side statement name, shared by every connection of the process. */
const names = new Map<string, string>();

/**
 * The name under which a parameterized statement is prepared, or undefined when it should run
 * unnamed. One global map, so one text always has one name (pg refuses a name reused for another
 * text on a connection).
 */
export function statementName(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `calsync_${names.size + 1}`;
    names.set(text, name);
  }
  return name;
}

/**
 * A pg Client that runs every parameterized text query as a named prepared statement: PostgreSQL
 * parses and plans each statement text once per connection instead of at every execution, which
 * is most of the server-side cost of the small, fixed-shape queries of a sync round trip (their
 * shapes never depend on the number of items: arrays travel as one parameter). Kysely calls
 * `query(text, values)`, which is the only form rewritten; everything else passes through, except
 * that a multi-statement text answers with its last result (BEGIN and the user lock sent as one text).
 */
export class PreparingClient extends pg.Client {
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
}
