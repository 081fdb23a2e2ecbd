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
interface Histogram {
  readonly buckets: readonly { readonly le: number; readonly count: number }[];
  readonly count: number;
  readonly sum: number;
}

function histogramOf(text: string, name: string): Histogram {
  const buckets = [...text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} ([0-9.e+-]+)$`, 'gm'))].map((m) => ({
    le: m[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(m[1]),
    count: Number(m[2]),
  }));
  return { buckets, count: sample(text, `${name}_count`), sum: sample(text, `${name}_sum`) };
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
  const a = histogramOf(before, name);
  const b = histogramOf(after, name);
  const buckets = b.buckets.map((bucket, i) => ({ le: bucket.le, count: bucket.count - (a.buckets[i]?.count ?? 0) }));
  const count = b.count - a.count;
  const at = (p: number): number => {
    const rank = Math.max(1, Math.ceil((p / 100) * count));
    return (buckets.find((bucket) => bucket.count >= rank)?.le ?? Number.NaN) * 1000;
  };
  const overBound = buckets.find((bucket) => bucket.le * 1000 === overMs);
  if (overBound === undefined) throw new Error(`${name} has no bucket bound at ${overMs} ms`);
  return {
    count,
    meanMs: count === 0 ? Number.NaN : ((b.sum - a.sum) / count) * 1000,
    p50AtMostMs: count === 0 ? Number.NaN : at(50),
    p99AtMostMs: count === 0 ? Number.NaN : at(99),
    maxAtMostMs: count === 0 ? Number.NaN : at(100),
    over: count - overBound.count,
    overMs,
  };
}

/**
 * Requests to `routes` that the server itself timed above `overMs` between two scrapes, from
 * fastify-metrics' `http_request_duration_seconds` (its bucket bounds: 25, 50, 100, 250 ms …), and
 * how many it timed in all.
 */
export function requestsOver(before: string, after: string, routes: readonly string[], overMs: 25 | 50 | 100 | 250): { count: number; over: number } {
  const tally = (text: string): { count: number; within: number } => {
    let count = 0;
    let within = 0;
    for (const m of text.matchAll(/^http_request_duration_seconds_bucket\{([^}]*)\} ([0-9.e+-]+)$/gm)) {
      const labels = m[1]!;
      if (!routes.some((r) => labels.includes(`route="${r}"`))) continue;
      const le = /le="([^"]+)"/.exec(labels)?.[1];
      if (le === '+Inf') count += Number(m[2]);
      else if (Number(le) * 1000 === overMs) within += Number(m[2]);
    }
    return { count, within };
  };
  const a = tally(before);
  const b = tally(after);
  return { count: b.count - a.count, over: b.count - a.count - (b.within - a.within) };
}
