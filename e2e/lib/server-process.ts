import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** Repository root: the server process runs from here so `--conditions=source` resolves workspace sources. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Node's arguments that run the real server (`packages/http-fastify/src/main.ts`) from source through tsx, from REPO_ROOT. */
const MAIN = ['--conditions=source', '--import', 'tsx', 'packages/http-fastify/src/main.ts'];

/** A server process's environment: exactly `env`, plus the PATH and HOME it needs to run. */
function processEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env };
}

/** Runs `main.ts` (optionally with a command such as `migrate`) with exactly `env` until it exits, for what start-up prints and how it ends. */
export function runMainToExit(env: Readonly<Record<string, string>>, args: readonly string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...MAIN, ...args], { cwd: REPO_ROOT, env: processEnv(env), timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

/** A free TCP port on the loopback interface, so parallel runs never collide on a fixed port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** How a stopped server process ended, and how long it took after the signal. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly elapsedMs: number;
}

/**
 * The real server (`packages/http-fastify/src/main.ts`) in its own Node process, run from source
 * through tsx: the e2e test talks to it only over HTTP, exactly as a client would.
 */
export class RealServerProcess {
  private child: ChildProcess | null = null;
  private output = '';
  private exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> | null = null;
  /** `http://127.0.0.1:<port>` once started. */
  baseUrl = '';

  constructor(
    private readonly env: Readonly<Record<string, string>>,
    /** `host`: the local interface address to bind to and talk to (default 127.0.0.1). */
    private readonly options: { readonly host?: string } = {},
  ) {}

  /** Spawns the process on a free port and resolves once /health/ready answers 200. */
  async start(readyTimeoutMs = 90_000): Promise<void> {
    const port = await freePort();
    const host = this.options.host ?? '127.0.0.1';
    this.baseUrl = `http://${host}:${port}`;
    const child = spawn(process.execPath, MAIN, {
      cwd: REPO_ROOT,
      env: processEnv({ ...this.env, PORT: String(port), HOST: host }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const keep = (chunk: Buffer): void => {
      this.output = (this.output + chunk.toString('utf8')).slice(-40_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const deadline = Date.now() + readyTimeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited before it was ready:\n${this.output}`);
      try {
        const res = await fetch(`${this.baseUrl}/health/ready`);
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`server was not ready within ${readyTimeoutMs} ms:\n${this.output}`);
  }

  /** Everything the process wrote to stdout and stderr (the last 40 kB), for failure messages. */
  log(): string {
    return this.output;
  }

  /** True while the process has not exited. */
  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends SIGKILL (kill -9: no shutdown code runs) and waits for the exit. */
  async kill(): Promise<ProcessExit> {
    const child = this.child;
    const exited = this.exited;
    if (!child || !exited) throw new Error('server was never started');
    const started = Date.now();
    if (this.running) child.kill('SIGKILL');
    const { code, signal } = await exited;
    return { code, signal, elapsedMs: Date.now() - started };
  }

  /**
   * Sends SIGTERM and waits for the exit; after `killAfterMs` it sends SIGKILL so a hung server
   * never outlives the test run (the returned exit then shows the signal, failing the caller's check).
   */
  async terminate(killAfterMs = 15_000): Promise<ProcessExit> {
    const child = this.child;
    const exited = this.exited;
    if (!child || !exited) throw new Error('server was never started');
    const started = Date.now();
    if (this.running) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    const { code, signal } = await exited;
    clearTimeout(killer);
    return { code, signal, elapsedMs: Date.now() - started };
  }
}
