/**
 * The value of one sample in Prometheus text exposition (`name{labels} value`), or undefined when
 * the series is absent; lets the e2e test check counters without a Prometheus parser dependency.
 */
export function sampleValue(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    if (space > 0 && line.slice(0, space) === series) return Number(line.slice(space + 1));
  }
  return undefined;
}

/**
 * The sum of the samples of `name` whose labels include every pair of `labels` (the series of one
 * route and status over all methods, say); 0 when none matches.
 */
export function sampleSum(text: string, name: string, labels: Readonly<Record<string, string>>): number {
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const close = line.lastIndexOf('} ');
    if (close < 0) continue;
    const series = `,${line.slice(name.length + 1, close)},`;
    if (wanted.every((pair) => series.includes(`,${pair},`))) sum += Number(line.slice(close + 2));
  }
  return sum;
}
