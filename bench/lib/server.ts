import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../packages/http-fastify/dist/main.js', import.meta.url));

/** A free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** CPU seconds (user + system) process `pid` has used so far; 0 once it is gone (Linux /proc). */
export function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds the whole machine has spent so far (all CPUs, Linux /proc/stat): `busy` in user,
 * nice, system, irq and softirq time, and `steal`, time the hypervisor gave this machine's CPUs to
 * someone else.
 */
function machineCpuSeconds(): { busy: number; steal: number } {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number) as number[];
  return { busy: (user! + nice! + system! + irq! + softirq!) / TICKS, steal: steal! / TICKS };
}

/** CPU seconds the hypervisor has taken from this machine's CPUs so far (/proc/stat steal). */
export function stolenSeconds(): number {
  return machineCpuSeconds().steal;
}

/** CPU seconds each PostgreSQL process of the machine (backends and background processes) has used so far, by pid. */
function postgresCpuSeconds(): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') byPid.set(Number(pid), processCpuSeconds(Number(pid)));
    } catch {
      /* gone meanwhile */
    }
  }
  return byPid;
}

/**
 * The CPU seconds PostgreSQL's processes used between two `postgresCpuSeconds` readings: each
 * process's growth, a process started meanwhile all of its time. A process that ended meanwhile
 * (an idle pool connection closing) is left out: its time before the first reading is not this
 * interval's, and what it used after that is lost with it.
 */
function postgresCpuBetween(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let sum = 0;
  for (const [pid, seconds] of after) sum += seconds - (before.get(pid) ?? 0);
  return sum;
}

/** What the machine spent outside a measurement: `otherCpuSeconds` and `stealSeconds` (`machineShare`). */
export interface MachineShare {
  otherCpuSeconds: number;
  stealSeconds: number;
}

/**
 * Starts reading the CPU the machine spends outside the measurement's own processes (the server,
 * whose reader is `serverCpuSeconds`, every PostgreSQL process, and this process) and the time the
 * hypervisor steals; the function it returns ends the reading and answers both.
 */
export function machineShare(serverCpuSeconds: () => number): () => MachineShare {
  const before = { machine: machineCpuSeconds(), server: serverCpuSeconds(), postgres: postgresCpuSeconds(), own: process.cpuUsage() };
  return () => {
    const machine = machineCpuSeconds();
    const own = process.cpuUsage(before.own);
    const ours = serverCpuSeconds() - before.server + postgresCpuBetween(before.postgres, postgresCpuSeconds()) + (own.user + own.system) / 1e6;
    return { otherCpuSeconds: Math.max(0, machine.busy - before.machine.busy - ours), stealSeconds: machine.steal - before.machine.steal };
  };
}

/** The real server process, started from the compiled main.js with the given environment. */
export class ServerProcess {
  private child: ChildProcess | null = null;
  private output = '';
  baseUrl = '';

  constructor(
    private readonly env: Record<string, string>,
    /** Extra node flags for the server process (e.g. `--cpu-prof` for `bench --profile`). */
    private readonly nodeArgs: readonly string[] = [],
  ) {}

  /** Starts the process and waits until /health/ready answers 200 (PGlite's first start runs initdb: give it time). */
  async start(readyTimeoutMs = 180_000): Promise<void> {
    const port = await freePort();
    this.baseUrl = `http://127.0.0.1:${port}`;
    this.child = spawn(process.execPath, [...this.nodeArgs, MAIN], {
      env: { ...process.env, ...this.env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (c: Buffer) => (this.output = (this.output + c.toString()).slice(-20000)));
    this.child.stderr!.on('data', (c: Buffer) => (this.output = (this.output + c.toString()).slice(-20000)));
    const deadline = Date.now() + readyTimeoutMs;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`server exited early:\n${this.output}`);
      try {
        const res = await fetch(`${this.baseUrl}/health/ready`);
        if (res.ok) return;
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`server did not become ready:\n${this.output}`);
  }

  /** Resident set size of the server process in MB (Linux /proc). */
  rssMb(): number {
    const status = readFileSync(`/proc/${this.child!.pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 'NaN');
    return kb / 1024;
  }

  /** Samples RSS every `everyMs` until the returned stop function is called; it returns the peak. */
  sampleRss(everyMs = 20): () => number {
    let peak = this.rssMb();
    const timer = setInterval(() => (peak = Math.max(peak, this.rssMb())), everyMs);
    return () => {
      clearInterval(timer);
      return Math.max(peak, this.rssMb());
    };
  }

  /** CPU seconds (user + system) the server process has used so far (Linux /proc). */
  cpuSeconds(): number {
    return processCpuSeconds(this.child!.pid!);
  }

  log(): string {
    return this.output;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 12_000).unref();
    });
  }
}
