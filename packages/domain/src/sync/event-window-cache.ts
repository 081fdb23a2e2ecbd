import type { OccurrencePage, OccurrenceWindow } from '../calendar/occurrence.js';
import type { EventWindow } from '../ports/sync-store.js';

/** Windows kept at most (least recently used go first). */
const MAX_ENTRIES = 256;
/** Windows with more events than this are not kept (their memory would crowd out the others). */
const MAX_EVENTS = 5000;
/** Expanded pages kept per window (viewer zones, calendar filters, limits asked of it). */
const MAX_PAGES = 4;
/**
 * How long a window is trusted even when the user's newest version still matches: far below any
 * tombstone retention, so a purge that takes the user's newest version back to an older one can
 * never make an old entry look current.
 */
const MAX_AGE_MS = 5 * 60_000;

/** A kept window: the events read at `version`, and the pages expanded from them. */
export class KeptWindow {
  readonly #pages = new Map<string, OccurrencePage>();

  constructor(
    /** The user's newest version when the window was read (the window is at least as new). */
    readonly version: bigint,
    /** When it was read (clock milliseconds). */
    readonly at: number,
    readonly window: EventWindow,
  ) {}

  /**
   * The page of `query` expanded from this window: kept, so asking the same view again answers the
   * same page object (its serialized form can be kept beside it, see the occurrence route).
   */
  page(query: OccurrenceWindow, expand: () => OccurrencePage): OccurrencePage {
    const key = `${query.tz ?? ''}\u0000${query.limit ?? ''}\u0000${query.calendarUids?.join('\u0001') ?? '\u0002'}`;
    let page = this.#pages.get(key);
    if (page === undefined) {
      page = expand();
      // Shared between requests from now on: frozen, so no caller can change what another is answered.
      for (const occurrence of page.occurrences) Object.freeze(occurrence);
      Object.freeze(page.occurrences);
      Object.freeze(page);
      if (this.#pages.size >= MAX_PAGES) this.#pages.delete(this.#pages.keys().next().value as string);
      this.#pages.set(key, page);
    }
    return page;
  }
}

/**
 * The occurrence reads of recent windows, per user and range, each kept with the user's newest
 * change version at the time of the read: the store reads the window again only when that version
 * moved (any write of the user, on any node: the version is read from the database). A calendar
 * view asks the same months again and again; a hit costs one small version read instead of the
 * events, and the expanded page is kept too.
 */
export class EventWindowCache {
  readonly #entries = new Map<string, KeptWindow>();

  /** The window kept for this user and range if it is still young enough to be trusted, or undefined. */
  get(userId: number, from: string, to: string, now: number): KeptWindow | undefined {
    const key = `${userId}\u0000${from}\u0000${to}`;
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (now - entry.at > MAX_AGE_MS || now < entry.at) return undefined;
    this.#entries.set(key, entry);
    return entry;
  }

  /** Keeps a window read at `version` (read after the version, so at least as new), replacing the one kept; answers it. */
  set(userId: number, from: string, to: string, version: bigint, window: EventWindow, now: number): KeptWindow {
    const entry = new KeptWindow(version, now, window);
    if (window.events.length > MAX_EVENTS) return entry;
    const key = `${userId}\u0000${from}\u0000${to}`;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (this.#entries.size > MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value as string);
    return entry;
  }
}
