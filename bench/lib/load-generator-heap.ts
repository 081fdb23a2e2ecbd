import { spawnSync } from 'node:child_process';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8 settings of the load generator's heap: room to grow to 4 GB before its first full
 * collection, and five times what a collection leaves live before the next one.
 *
 * The load generator plays up to 100 devices in one process, so one full collection of its heap
 * (25–64 ms, with its marking on the same two cores before it) held up every device at once, and
 * the open loop's steps that caught one read their p99 from it: 116–248 ms at half rate against
 * 21–57 ms in steps without one (bench/PERFORMANCE.md, thirty-second pass). A phone collects only
 * its own small heap. With this room the load generator rarely collects in full during a run; each
 * open-loop step still reports the full collections it saw (`OpenLoopStep.loadGeneratorGc`). The
 * server and the other processes the bench starts keep Node's defaults.
 */
export const LOAD_GENERATOR_HEAP_FLAGS: readonly string[] = ['--initial-old-space-size=4096', '--heap-growing-percent=300'];

/**
 * Runs this script again in a Node process with `LOAD_GENERATOR_HEAP_FLAGS` when the current one
 * was started without them (the heap's sizes are fixed when the process starts), and answers
 * whether it did: then that process's exit code is this one's, and the caller does nothing more.
 */
export function ranWithHeapRoom(): boolean {
  if (LOAD_GENERATOR_HEAP_FLAGS.every((flag) => process.execArgv.includes(flag))) return false;
  const run = spawnSync(process.execPath, [...LOAD_GENERATOR_HEAP_FLAGS, ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exitCode = run.status ?? 1;
  return true;
}

/**
 * A full collection of the load generator's heap, now. The full run calls it after the open loop,
 * the last workload of the 100 devices: the workloads after it then run on a collected heap, as
 * they did before the heap was given its room, instead of on the gigabytes the devices left.
 */
export function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
