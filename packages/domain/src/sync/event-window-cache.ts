import type { EventWindow } from '../ports/sync-store.js';

/** Windows kept at most (least recently used go first). */
const MAX_ENTRIES = 256;
/** Windows with more events than this are not kept (their memory would crowd out the others). */
const MAX_EVENTS = 5000;
/**
 * How long a window is trusted even when the user's newest version still matches: far below any
 * tombstone retention, so a purge that takes the user's newest version back to an older one can
 * never make an old entry look current.
 */
const MAX_AGE_MS = 5 * 60_000;

interface Entry {
  readonly version: bigint;
  readonly at: number;
  readonly window: EventWindow;
}

/**
 * The occurrence read of recent windows, per user, keyed by the user's newest change version at
 * the time of the read: any write of the user (on any node: the version is read from the
 * database) makes every kept window of that user a miss. A calendar view asks the same months
 * again and again; a hit costs one small version read instead of the events.
 */
export class EventWindowCache {
  readonly #entries = new Map<string, Entry>();

  /** The window read at `version` for this user and range, or undefined. */
  get(userId: number, from: string, to: string, version: bigint, now: number): EventWindow | undefined {
    const key = `${userId}\u0000${from}\u0000${to}`;
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.version !== version || now - entry.at > MAX_AGE_MS || now < entry.at) return undefined;
    this.#entries.set(key, entry);
    return entry.window;
  }

  /** Keeps a window read at `version` (read after the version, so it is at least as new). */
  set(userId: number, from: string, to: string, version: bigint, window: EventWindow, now: number): void {
    if (window.events.length > MAX_EVENTS) return;
    const key = `${userId}\u0000${from}\u0000${to}`;
    this.#entries.delete(key);
    this.#entries.set(key, { version, at: now, window });
    if (this.#entries.size > MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value as string);
  }
}
