/**
 * The number of runs of a property test: `base` times the `FC_RUNS` environment variable (a whole
 * number, 1 when unset or unreadable), so one variable lengthens every property suite for a soak
 * (FC_RUNS=20) without touching the tests.
 */
export function propertyRuns(base = 1): number {
  return base * Math.max(1, Number(process.env.FC_RUNS ?? '1') || 1);
}
