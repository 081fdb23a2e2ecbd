/**
 * A reader of one device's rows in a process of its own, for the initial sync: either our pull
 * (`GET /api/sync/changes` with limit 1,000 from no cursor, each page parsed, as a device would) or
 * its baseline (the rows through `pg` with keyset SELECTs of 1,000, each page JSON-encoded). Each
 * read is timed inside the process.
 *
 * Run in the load generator, either side measured that process's history as much as the read: the
 * baseline got faster the more the run had done before it (69,000–87,000 rows/s when the initial
 * sync ran alone, 104,000–129,000 after the full run's earlier workloads: its JIT and heap, not the
 * database), and our side's `JSON.parse` of each page slowed in the load generator's larger heap. A
 * fresh process per side, warmed up the same way in every mode (`WARM_UP_READS` untimed reads),
 * reads at one pace; what the server's own history costs stays in our side's figure.
 *
 * Protocol over the IPC channel (`fork`): parent sends `{ start: source }`, child connects, warms
 * up and answers `{ ready: rows }`; parent sends `{ read: true }`, child answers `{ rows, ms }`;
 * parent sends `{ stop: true }`, child answers `{ stopped: true }` and exits.
 */
import { RECORD_TYPES } from '@calsync/domain/rules';
import pg from 'pg';
import { agent, pull } from './client.js';
import { forkModule, isForkedModule } from './forked.js';

/** Untimed reads a reader process makes before its first timed one. */
const WARM_UP_READS = 3;

/** What a reader reads: our server's pull as a device, or the baseline straight from PostgreSQL. */
export type ReadSource = { readonly pull: { readonly baseUrl: string; readonly token: string } } | { readonly baseline: { readonly databaseUrl: string; readonly userId: number } };

type ToChild = { start: ReadSource } | { read: true } | { stop: true };
type FromChild = { ready: number } | { rows: number; ms: number } | { stopped: true } | { failed: string };

/** A reader process, seen from the load generator. */
export interface ReaderProcess {
  /** The rows the warm-up read. */
  readonly rows: number;
  /** One timed read: the rows read and the milliseconds the reading process measured. */
  read(): Promise<{ rows: number; ms: number }>;
  stop(): Promise<void>;
}

/** Our side: every page of a pull from no cursor, limit 1,000, parsed (`pull` parses each answer). */
async function pullEverything(baseUrl: string, token: string): Promise<number> {
  let rows = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await pull(baseUrl, token, cursor, 1000);
    for (const type of RECORD_TYPES) rows += page[type].length;
    cursor = page.nextCursor;
    if (!page.hasMore) return rows;
  }
}

/** The baseline: `userId`'s rows through `client`, keyset SELECTs of 1,000 per table (each record type's table bears its name), each page JSON-encoded. */
async function selectEverything(client: pg.Client, userId: number): Promise<number> {
  let rows = 0;
  for (const table of RECORD_TYPES) {
    let after = '0';
    for (;;) {
      const res = await client.query(`SELECT * FROM ${table} WHERE user_id = $1 AND version > $2 ORDER BY version LIMIT 1000`, [userId, after]);
      if (res.rows.length === 0) break;
      JSON.stringify(res.rows);
      rows += res.rows.length;
      after = String(res.rows[res.rows.length - 1].version);
      if (res.rows.length < 1000) break;
    }
  }
  return rows;
}

/** Starts a reader process of `source`; resolves once it has warmed up. */
export async function startReader(source: ReadSource): Promise<ReaderProcess> {
  const name = 'pull' in source ? 'pull reader' : 'baseline reader';
  const child = forkModule<ToChild, FromChild>(import.meta.url, name);
  const ask = async (message: ToChild): Promise<FromChild> => {
    const answer = await child.ask(message);
    if ('failed' in answer) throw new Error(`${name}: ${answer.failed}`);
    return answer;
  };
  const ready = await ask({ start: source });
  if (!('ready' in ready)) throw new Error(`${name} answered out of turn`);
  return {
    rows: ready.ready,
    async read() {
      const r = await ask({ read: true });
      if (!('ms' in r)) throw new Error(`${name} answered out of turn`);
      return r;
    },
    async stop() {
      await ask({ stop: true });
    },
  };
}

/** The child's side. */
function serve(): void {
  let readEverything: () => Promise<number> = () => Promise.reject(new Error('not started'));
  let close: () => Promise<void> = async () => undefined;
  process.on('message', (m: ToChild) => {
    void (async () => {
      try {
        if ('start' in m) {
          if ('pull' in m.start) {
            const { baseUrl, token } = m.start.pull;
            readEverything = () => pullEverything(baseUrl, token);
            close = () => agent.close();
          } else {
            const { databaseUrl, userId } = m.start.baseline;
            const client = new pg.Client({ connectionString: databaseUrl });
            await client.connect();
            readEverything = () => selectEverything(client, userId);
            close = () => client.end();
          }
          let rows = 0;
          for (let i = 0; i < WARM_UP_READS; i++) rows = await readEverything();
          process.send!({ ready: rows } satisfies FromChild);
        } else if ('read' in m) {
          const t0 = performance.now();
          const rows = await readEverything();
          process.send!({ rows, ms: performance.now() - t0 } satisfies FromChild);
        } else {
          await close();
          process.send!({ stopped: true } satisfies FromChild, () => process.exit(0));
        }
      } catch (error) {
        process.send!({ failed: error instanceof Error ? error.message : String(error) } satisfies FromChild);
      }
    })();
  });
}

if (isForkedModule(import.meta.url)) serve();
