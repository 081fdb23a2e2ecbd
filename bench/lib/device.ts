import { type BenchPullPage, type DeviceSession, pull, push } from './client.js';

/** A benchmark device's local copy of one user's events and calendars, kept by push results and pulls. */
export class BenchDevice {
  readonly events = new Map<string, { version: string; title: string; calendarUid?: string }>();
  readonly calendars = new Map<string, { version: string }>();
  cursor: string | undefined;

  constructor(
    readonly baseUrl: string,
    readonly session: DeviceSession,
  ) {}

  /** Applies a pull page: tombstones are removed, everything else stored by uid. */
  apply(page: BenchPullPage): void {
    for (const c of page.calendars) {
      if (c.deleted) this.calendars.delete(c.uid);
      else this.calendars.set(c.uid, { version: c.version });
    }
    for (const e of page.events) {
      if (e.deleted) this.events.delete(e.uid);
      else this.events.set(e.uid, { version: e.version, title: e.title ?? '' });
    }
  }

  /** Pulls until hasMore is false; stores the cursor only after the whole pull succeeded. */
  async pullAll(limit = 1000): Promise<void> {
    let cursor = this.cursor;
    for (;;) {
      const page = await pull(this.baseUrl, this.session.token, cursor, limit);
      this.apply(page);
      cursor = page.nextCursor;
      if (!page.hasMore) break;
    }
    this.cursor = cursor;
  }

  /** Pushes event items and records the returned versions; returns the results. */
  async pushEvents(items: Array<Record<string, unknown> & { uid: string; baseVersion: string | null }>) {
    const res = await push(this.baseUrl, this.session.token, { events: items });
    const results = res.events ?? [];
    results.forEach((r, i) => {
      const item = items[i]!;
      if ((r.status === 'created' || r.status === 'updated' || r.status === 'conflict') && r.version) {
        const prev = this.events.get(r.uid);
        this.events.set(r.uid, { version: r.version, title: String(item.title ?? prev?.title ?? '') });
      }
    });
    return results;
  }
}
