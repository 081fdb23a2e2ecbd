import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './server-process.js';

const run = promisify(execFile);

/** Where Debian's PostgreSQL 15 keeps initdb, pg_ctl and postgres (PG_BIN overrides). */
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** True when this machine can run a private PostgreSQL (the binaries exist). */
export function canRunThrowawayPostgres(): boolean {
  return existsSync(join(PG_BIN, 'initdb')) && existsSync(join(PG_BIN, 'pg_ctl'));
}

/**
 * A PostgreSQL instance of its own for one test: initdb into a temporary folder, on a free loopback
 * port, started and stopped (gracefully or not) by the test, so it can fail the database under a
 * running server without touching anyone else's. PostgreSQL refuses to run as root: as root, every
 * command runs as the `postgres` system user.
 */
export class ThrowawayPostgres {
  readonly dir: string;
  port = 0;
  readonly #asUser: string[];

  private constructor(dir: string, asUser: string[]) {
    this.dir = dir;
    this.#asUser = asUser;
  }

  /** Creates the cluster (trust auth, no fsync: a test instance) on a free port; not started. */
  static async create(): Promise<ThrowawayPostgres> {
    const root = mkdtempSync(join(tmpdir(), 'calsync-pg-'));
    const asUser = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
    if (asUser.length > 0) {
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
      chownSync(root, uid, gid);
    }
    const pg = new ThrowawayPostgres(root, asUser);
    await pg.#pg('initdb', ['-D', pg.#data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale', 'C']);
    pg.port = await freePort();
    return pg;
  }

  get #data(): string {
    return join(this.dir, 'data');
  }

  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  async #pg(tool: string, args: string[]): Promise<string> {
    const [cmd, ...rest] = [...this.#asUser, join(PG_BIN, tool), ...args];
    const { stdout } = await run(cmd!, rest, { timeout: 60_000 });
    return stdout;
  }

  /** Starts the server and waits until it accepts connections. */
  async start(): Promise<void> {
    const options = `-p ${this.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='${this.dir}' -c fsync=off -c max_connections=50`;
    await this.#pg('pg_ctl', ['start', '-D', this.#data, '-w', '-t', '60', '-l', join(this.dir, 'server.log'), '-o', options]);
  }

  /** Stops the server: `fast` (disconnects clients, clean shutdown) or `immediate` (like a crash). */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.#pg('pg_ctl', ['stop', '-D', this.#data, '-w', '-t', '60', '-m', mode]);
  }

  /** Stops the server if it runs and removes the folder. */
  async destroy(): Promise<void> {
    await this.stop('immediate').catch(() => {});
    rmSync(this.dir, { recursive: true, force: true });
  }
}
