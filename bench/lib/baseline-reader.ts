/**
 * The initial sync's baseline in a process of its own: a device's rows read through `pg` with
 * keyset SELECTs of 1,000, each page JSON-encoded, timed inside the process. Run in the load
 * generator, the baseline got faster the more the run had done before it (69,000–87,000 rows/s when
 * the initial sync ran alone, 104,000–129,000 after the full run's earlier workloads: that process's
 * JIT and heap, not the database), and the ratio moved with it. A fresh process, warmed up the same
 * way in every mode (`WARM_UP_READS` untimed reads), reads at one pace.
 *
 * Protocol over the IPC channel (`fork`): parent sends `{ start: { url, userId } }`, child connects,
 * warms up and answers `{ ready: rows }`; parent sends `{ read: true }`, child answers `{ rows, ms }`;
 * parent sends `{ stop: true }`, child answers `{ stopped: true }` and exits.
 */
import pg from 'pg';
import { forkModule, isForkedModule } from './forked.js';

/** Untimed reads a baseline process makes before its first timed one. */
const WARM_UP_READS = 3;

type ToChild = { start: { url: string; userId: number } } | { read: true } | { stop: true };
type FromChild = { ready: number } | { rows: number; ms: number } | { stopped: true } | { failed: string };

/** The baseline process, seen from the load generator. */
export interface BaselineReader {
  /** The rows the warm-up read. */
  readonly rows: number;
  /** One timed read: the rows read and the milliseconds the reading process measured. */
  read(): Promise<{ rows: number; ms: number }>;
  stop(): Promise<void>;
}

/** The baseline: `userId`'s rows through `client`, keyset SELECTs of 1,000 per table, each page JSON-encoded. */
async function readEverything(client: pg.Client, userId: number): Promise<number> {
  let rows = 0;
  for (const table of ['calendars', 'events', 'tasks', 'reminders']) {
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

/** Starts a baseline process for `userId`'s rows on `databaseUrl`; resolves once it has warmed up. */
export async function startBaselineReader(databaseUrl: string, userId: number): Promise<BaselineReader> {
  const child = forkModule<ToChild, FromChild>(import.meta.url, 'baseline reader');
  const ask = async (message: ToChild): Promise<FromChild> => {
    const answer = await child.ask(message);
    if ('failed' in answer) throw new Error(`baseline reader: ${answer.failed}`);
    return answer;
  };
  const ready = await ask({ start: { url: databaseUrl, userId } });
  if (!('ready' in ready)) throw new Error('baseline reader answered out of turn');
  return {
    rows: ready.ready,
    async read() {
      const r = await ask({ read: true });
      if (!('ms' in r)) throw new Error('baseline reader answered out of turn');
      return r;
    },
    async stop() {
      await ask({ stop: true });
    },
  };
}

/** The child's side. */
function serve(): void {
  let client: pg.Client | null = null;
  let userId = 0;
  process.on('message', (m: ToChild) => {
    void (async () => {
      try {
        if ('start' in m) {
          client = new pg.Client({ connectionString: m.start.url });
          await client.connect();
          userId = m.start.userId;
          let rows = 0;
          for (let i = 0; i < WARM_UP_READS; i++) rows = await readEverything(client, userId);
          process.send!({ ready: rows } satisfies FromChild);
        } else if ('read' in m) {
          const t0 = performance.now();
          const rows = await readEverything(client!, userId);
          process.send!({ rows, ms: performance.now() - t0 } satisfies FromChild);
        } else {
          await client?.end();
          process.send!({ stopped: true } satisfies FromChild, () => process.exit(0));
        }
      } catch (error) {
        process.send!({ failed: error instanceof Error ? error.message : String(error) } satisfies FromChild);
      }
    })();
  });
}

if (isForkedModule(import.meta.url)) serve();
