/** Bounds and default of an integer query value; values outside are clamped, not refused. */
export interface QueryBounds {
  readonly min: number;
  readonly max: number;
  readonly default: number;
}

/**
 * The one table of page limits (docs/protocol.md): the services clamp to it and the HTTP
 * schemas describe it, so the two can never disagree.
 */
export const PAGE_LIMITS = {
  /** Page size of a pull. */
  pull: { min: 1, max: 1000, default: 500 },
  /** Page size of the conflict list. */
  conflicts: { min: 1, max: 200, default: 50 },
  /** The conflict list's `afterId`. */
  conflictAfterId: { min: 0, max: Number.MAX_SAFE_INTEGER, default: 0 },
} as const satisfies Record<string, QueryBounds>;

/** Clamps an optional integer query value into `bounds`, falling back to the default when absent or not a number. */
export function clampToBounds(value: number | undefined, bounds: QueryBounds): number {
  if (value === undefined || !Number.isFinite(value)) return bounds.default;
  return Math.min(bounds.max, Math.max(bounds.min, Math.trunc(value)));
}
