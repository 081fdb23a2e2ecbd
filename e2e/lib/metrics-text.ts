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
