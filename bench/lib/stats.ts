/** Percentile of already-collected samples (nearest-rank), in the samples' unit. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Milliseconds since `start` (a `performance.now()` reading). */
export function msSince(start: number): number {
  return performance.now() - start;
}

/** Rounds for printing and JSON: figures keep three significant decimals at most. */
export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Runs tasks 0 … `count` − 1, `inFlight` at a time (a lane takes the next task when its last one ends); answers the seconds taken. */
export async function lanes(count: number, inFlight: number, task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) await task(next++);
    }),
  );
  return msSince(t0) / 1000;
}
