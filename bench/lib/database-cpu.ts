import pg from 'pg';
import { processCpuSeconds } from './server.js';

/**
 * CPU seconds used by the PostgreSQL client backends of one database (PostgreSQL runs on this
 * machine: read in /proc), counted from the meter's start, its own connection left out.
 *
 * A backend that exits takes its CPU figure with it: a pool closing an idle connection between two
 * readings made a sum over the backends alive at each reading come out lower after a load than
 * before it (a negative CPU per push). So the meter samples every backend every `everyMs` and adds
 * each one's growth since its last sample; a backend that exits loses at most what it used after
 * its last sample. A backend first seen after the start counts from zero (its whole life is inside
 * the window); one alive at the start counts from its figure then.
 */
export class DatabaseCpuMeter {
  readonly #client: pg.Client;
  readonly #last = new Map<number, number>();
  #used = 0;
  #timer: NodeJS.Timeout | null = null;
  #sampling: Promise<void> = Promise.resolve();

  private constructor(client: pg.Client) {
    this.#client = client;
  }

  static async start(databaseUrl: string, everyMs = 100): Promise<DatabaseCpuMeter> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const meter = new DatabaseCpuMeter(client);
    await meter.#sample(true);
    meter.#timer = setInterval(() => void meter.read(), everyMs);
    meter.#timer.unref();
    return meter;
  }

  /** CPU seconds used since the start, sampled now. */
  async read(): Promise<number> {
    // One sample at a time: a reading waits for the one in flight and then takes its own.
    this.#sampling = this.#sampling.then(() => this.#sample(false));
    await this.#sampling;
    return this.#used;
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    await this.#sampling;
    await this.#client.end();
  }

  async #sample(first: boolean): Promise<void> {
    const { rows } = await this.#client.query<{ pid: number }>(
      "select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()",
    );
    for (const { pid } of rows) {
      const now = processCpuSeconds(pid);
      if (now === 0) continue; // gone between the query and the read
      const last = this.#last.get(pid);
      // A figure below the last one is a new backend that got a pid used before: it counts from zero.
      const since = last === undefined || now < last ? 0 : last;
      if (!first) this.#used += now - since;
      this.#last.set(pid, now);
    }
  }
}
