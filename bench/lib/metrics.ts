/** Reading the server's /metrics (Prometheus text format) from the benchmark. */

/** The /metrics text of the server at `baseUrl`. */
export async function scrapeMetrics(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/metrics`);
  if (!res.ok) throw new Error(`/metrics answered ${res.status}`);
  return res.text();
}

/** The value of an unlabelled sample `name` in a scrape; NaN when absent. */
export function sample(text: string, name: string): number {
  return Number(new RegExp(`^${name} ([0-9.e+-]+)`, 'm').exec(text)?.[1] ?? 'NaN');
}

/** The server's event-loop delay in a scrape (prom-client's figures since the scrape before), in ms. */
export function serverLoopDelay(text: string): { p99Ms: number; maxMs: number } {
  return { p99Ms: sample(text, 'nodejs_eventloop_lag_p99_seconds') * 1000, maxMs: sample(text, 'nodejs_eventloop_lag_max_seconds') * 1000 };
}

/** A histogram's cumulative bucket counts by upper bound (seconds, +Inf last), with its count and sum. */
export interface Histogram {
  readonly buckets: readonly { readonly le: number; readonly count: number }[];
  readonly count: number;
  readonly sum: number;
}

/** The labels of a sample other than `le` (`route="/x",method="GET"`), '' for an unlabelled one. */
const otherLabels = (labels: string): string => labels.replace(/(^|,)le="[^"]*"/, '').replace(/^,/, '');

/**
 * Histogram `name` in a scrape, summed over its series whose labels other than `le` pass `series`
 * (by default only the unlabelled series).
 */
function histogramOf(text: string, name: string, series: (labels: string) => boolean): Histogram {
  const byBound = new Map<number, number>();
  for (const m of text.matchAll(new RegExp(`^${name}_bucket\\{([^}]*)\\} ([0-9.e+-]+)$`, 'gm'))) {
    if (!series(otherLabels(m[1]!))) continue;
    const le = /le="([^"]+)"/.exec(m[1]!)![1]!;
    const bound = le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le);
    byBound.set(bound, (byBound.get(bound) ?? 0) + Number(m[2]));
  }
  let sum = 0;
  for (const m of text.matchAll(new RegExp(`^${name}_sum(?:\\{([^}]*)\\})? ([0-9.e+-]+)$`, 'gm'))) if (series(m[1] ?? '')) sum += Number(m[2]);
  const buckets = [...byBound].sort(([a], [b]) => a - b).map(([le, count]) => ({ le, count }));
  return { buckets, count: byBound.get(Number.POSITIVE_INFINITY) ?? 0, sum };
}

const unlabelled = (labels: string): boolean => labels === '';

/** What histogram `name` (its series passing `series`; by default the unlabelled one) recorded between scrapes `before` and `after`. */
export function histogramBetween(before: string, after: string, name: string, series: (labels: string) => boolean = unlabelled): Histogram {
  const a = histogramOf(before, name, series);
  const b = histogramOf(after, name, series);
  return {
    buckets: b.buckets.map((bucket) => ({ le: bucket.le, count: bucket.count - (a.buckets.find((x) => x.le === bucket.le)?.count ?? 0) })),
    count: b.count - a.count,
    sum: b.sum - a.sum,
  };
}

/** Samples of `h` above `overMs`, which must be one of its bucket bounds. */
export function countOver(h: Histogram, overMs: number): number {
  const bound = h.buckets.find((bucket) => bucket.le * 1000 === overMs);
  if (bound === undefined) throw new Error(`no bucket bound at ${overMs} ms`);
  return h.count - bound.count;
}

/** What a server histogram (in seconds) recorded between two scrapes. */
export interface HistogramFigures {
  count: number;
  meanMs: number;
  /** Upper bounds of the buckets holding the 50th and 99th percentile and the largest sample (ms; Infinity past the last bound). */
  p50AtMostMs: number;
  p99AtMostMs: number;
  maxAtMostMs: number;
  /** Samples above `overMs`. */
  over: number;
  overMs: number;
}

/** The histogram `name` between scrapes `before` and `after`; `overMs` must be one of its bounds. */
export function histogramDelta(before: string, after: string, name: string, overMs: number): HistogramFigures {
  const h = histogramBetween(before, after, name);
  const count = h.count;
  const at = (p: number): number => {
    const rank = Math.max(1, Math.ceil((p / 100) * count));
    return (h.buckets.find((bucket) => bucket.count >= rank)?.le ?? Number.NaN) * 1000;
  };
  return {
    count,
    meanMs: count === 0 ? Number.NaN : (h.sum / count) * 1000,
    p50AtMostMs: count === 0 ? Number.NaN : at(50),
    p99AtMostMs: count === 0 ? Number.NaN : at(99),
    maxAtMostMs: count === 0 ? Number.NaN : at(100),
    over: countOver(h, overMs),
    overMs,
  };
}
