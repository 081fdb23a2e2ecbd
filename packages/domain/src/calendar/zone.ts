/**
 * Wall-clock time in IANA zones, on the runtime's own time-zone database (Intl), with the RFC 5545
 * rules (§3.3.5) for local times that a daylight-saving change skips or repeats. "Local ms" is a
 * wall-clock time written as if it were UTC (`Date.UTC(y, m, d, h, mi, s)`): the floating form in
 * which recurrence rules are expanded.
 */

const DAY_MS = 86_400_000;

/** One zone's offsets, found once per UTC day boundary and kept (offsets of the past and future do not change within a process). */
class ZoneOffsets {
  readonly #format: Intl.DateTimeFormat;
  readonly #atBoundary = new Map<number, number>();
  readonly #transitions = new Map<number, number>();

  constructor(zone: string) {
    this.#format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  /** The zone's offset (local minus UTC, ms) at `instant`, read from Intl (whole seconds). */
  #read(instant: number): number {
    const seconds = Math.floor(instant / 1000) * 1000;
    const parts: Record<string, string> = {};
    for (const p of this.#format.formatToParts(new Date(seconds))) parts[p.type] = p.value;
    let year = Number(parts.year);
    if (parts.era === 'BC' || parts.era === 'B') year = 1 - year;
    const local = Date.UTC(year, Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
    // Date.UTC maps years 0..99 to 1900..1999; set the year again for those.
    const fixed = year >= 0 && year < 100 ? new Date(local).setUTCFullYear(year) : local;
    return fixed - seconds;
  }

  #boundary(day: number): number {
    let offset = this.#atBoundary.get(day);
    if (offset === undefined) {
      offset = this.#read(day * DAY_MS);
      this.#atBoundary.set(day, offset);
    }
    return offset;
  }

  /** The offset at `instant`. A UTC day holds at most one change of offset; when it holds one, its instant is found by bisection once. */
  offsetAt(instant: number): number {
    const day = Math.floor(instant / DAY_MS);
    const before = this.#boundary(day);
    const after = this.#boundary(day + 1);
    if (before === after) return before;
    let change = this.#transitions.get(day);
    if (change === undefined) {
      let lo = day * DAY_MS;
      let hi = (day + 1) * DAY_MS;
      while (hi - lo > 1000) {
        const mid = Math.floor((lo + hi) / 2000) * 1000;
        if (this.#read(mid) === before) lo = mid;
        else hi = mid;
      }
      change = hi;
      this.#transitions.set(day, change);
    }
    return instant < change ? before : after;
  }
}

const ZONES = new Map<string, ZoneOffsets>();

function offsetsOf(zone: string): ZoneOffsets {
  let offsets = ZONES.get(zone);
  if (offsets === undefined) {
    offsets = new ZoneOffsets(zone);
    ZONES.set(zone, offsets);
  }
  return offsets;
}

/** True for zones whose offset is always 0 (no Intl lookups needed). */
function isUtc(zone: string): boolean {
  return zone === 'UTC' || zone === 'Etc/UTC' || zone === 'Etc/GMT' || zone === 'GMT';
}

/** The offset (local minus UTC, in ms) of `zone` at `instant`. */
export function zoneOffsetAt(instant: number, zone: string): number {
  return isUtc(zone) ? 0 : offsetsOf(zone).offsetAt(instant);
}

/** The wall-clock time (local ms) that `instant` shows in `zone`. */
export function localMsOf(instant: number, zone: string): number {
  return instant + zoneOffsetAt(instant, zone);
}

/**
 * The instant of wall-clock time `local` (local ms) in `zone`, by RFC 5545 §3.3.5: a local time
 * that does not exist (skipped by a spring-forward change) is read with the offset before the gap,
 * so it lands as far after the gap's start as it was after the last existing time; a local time
 * that occurs twice (fall back) is the first of the two.
 */
export function instantOfLocal(local: number, zone: string): number {
  if (isUtc(zone)) return local;
  const offsets = offsetsOf(zone);
  // Offsets a day either side: no zone changes its offset twice within two days.
  const early = offsets.offsetAt(local - DAY_MS);
  const late = offsets.offsetAt(local + DAY_MS);
  const first = local - early;
  if (offsets.offsetAt(first) === early) {
    // Valid with the earlier offset; when `late` fits too the time is repeated, and the earlier instant wins.
    const second = local - late;
    return late !== early && offsets.offsetAt(second) === late ? Math.min(first, second) : first;
  }
  const withLate = local - late;
  if (offsets.offsetAt(withLate) === late) return withLate;
  // In the gap: the offset before it.
  return first;
}

/** The calendar date (`YYYY-MM-DD`) that `instant` falls on in `zone`. */
export function dateIn(instant: number, zone: string): string {
  return new Date(localMsOf(instant, zone)).toISOString().slice(0, 10);
}
