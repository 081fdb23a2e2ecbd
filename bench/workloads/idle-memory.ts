import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sample } from '../lib/metrics.js';
import { ServerProcess } from '../lib/server.js';

/** Resident memory of one idle server and where it goes (MB). */
export interface IdleMemory {
  rssMb: number;
  /** V8's JavaScript heap (allocated). */
  heapMb: number;
  /**
   * Memory outside the heap that V8 knows of, allocated (not all resident): PGlite's WebAssembly
   * memory (at least 128 MB, its declared minimum; only touched pages count in RSS) and buffers.
   */
  externalMb: number;
  readyMs: number;
}

/** Figures of the idle-memory workload: PGlite first start and restart, against PostgreSQL. */
export interface IdleMemoryFigures {
  pgliteFirstStart: IdleMemory;
  pgliteRestart: IdleMemory;
  /** Baseline: the same server on the PostgreSQL server (null when none was given). */
  postgres: IdleMemory | null;
  /** PGlite restart RSS / PostgreSQL RSS. */
  pgliteOverPostgres: number | null;
}

const IDLE_MS = 5000;

async function idleServer(env: Record<string, string>): Promise<IdleMemory> {
  const server = new ServerProcess({ NODE_ENV: 'development', LOG_LEVEL: 'warn', ...env });
  const started = Date.now();
  await server.start(300_000);
  const readyMs = Date.now() - started;
  try {
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const rssMb = server.rssMb();
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
    const heapMb = sample(metrics, 'nodejs_heap_size_total_bytes') / 2 ** 20;
    const externalMb = sample(metrics, 'nodejs_external_memory_bytes') / 2 ** 20;
    return { rssMb, heapMb, externalMb, readyMs };
  } finally {
    await server.stop();
  }
}

/**
 * The embedded default's memory after start-up, at idle: a server on a new PGlite folder (first
 * start, which runs initdb), the same folder again (restart), and as the baseline the server on
 * PostgreSQL. The target: the embedded default under 200 MB.
 */
export async function runIdleMemory(postgresUrl: string | null): Promise<IdleMemoryFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'calsync-idle-'));
  try {
    const pgliteFirstStart = await idleServer({ DATABASE_URL: `pglite://${dir}` });
    const pgliteRestart = await idleServer({ DATABASE_URL: `pglite://${dir}` });
    const postgres = postgresUrl ? await idleServer({ DATABASE_URL: postgresUrl }) : null;
    return { pgliteFirstStart, pgliteRestart, postgres, pgliteOverPostgres: postgres ? pgliteRestart.rssMb / postgres.rssMb : null };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
