import { DomainError, ErrorCode } from '../errors.js';
import { hashRefreshToken } from '../auth/token-hash.js';
import type { Clock } from '../ports/clock.js';
import type { FeedRecord, FeedStore } from '../ports/feed-store.js';
import type { Random } from '../ports/random.js';
import type { SyncApi } from '../sync/types.js';

/** Dependencies of `FeedService`. */
export interface FeedServiceDeps {
  readonly feeds: FeedStore;
  readonly sync: Pick<SyncApi, 'readObjects'>;
  readonly random: Random;
  readonly clock: Clock;
}

/** Random bytes of a feed token: 192 bits (the URL is the only secret of a subscription). */
const TOKEN_BYTES = 24;

/**
 * Subscription feeds: a read-only iCalendar URL of one calendar that Google, Apple and Outlook
 * calendars subscribe to. The token is the secret in the URL; only its SHA-256 is stored, so the
 * URL is shown once, and revoking the feed makes it answer 404 from then on.
 */
export class FeedService {
  constructor(private readonly deps: FeedServiceDeps) {}

  /** A new feed of the user's live calendar `calendarUid` (NOT_FOUND otherwise), with its token. */
  async create(userId: number, calendarUid: string): Promise<{ feed: FeedRecord; token: string }> {
    const { calendars } = await this.deps.sync.readObjects(userId, { calendarUid }, []);
    if (!calendars.some((c) => c.uid === calendarUid)) throw new DomainError(ErrorCode.NOT_FOUND, 'no such calendar');
    const token = Buffer.from(this.deps.random.bytes(TOKEN_BYTES)).toString('base64url');
    const feed = await this.deps.feeds.createFeed(userId, calendarUid, hashRefreshToken(token), this.deps.clock.now().toISOString());
    return { feed, token };
  }

  /**
   * The user's feeds that answer (no tokens): not revoked, of a live calendar. A deleted calendar's
   * feeds answer 404 and are not listed; they answer again, and are listed, only if the calendar
   * comes back (a conflict decided for the side that kept it).
   */
  async list(userId: number): Promise<FeedRecord[]> {
    const [feeds, { calendars }] = await Promise.all([this.deps.feeds.listFeeds(userId), this.deps.sync.readObjects(userId, { allCalendars: true }, [])]);
    const live = new Set(calendars.map((c) => c.uid));
    return feeds.filter((f) => live.has(f.calendarUid));
  }

  /** Ends a feed: its URL answers 404 from now on. NOT_FOUND unless it is a live feed of the user. */
  async revoke(userId: number, id: number): Promise<void> {
    if (!(await this.deps.feeds.revokeFeed(userId, id, this.deps.clock.now().toISOString()))) {
      throw new DomainError(ErrorCode.NOT_FOUND, 'no such feed');
    }
  }

  /** The live feed a token opens, or null. */
  open(token: string): Promise<FeedRecord | null> {
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(token)) return Promise.resolve(null);
    return this.deps.feeds.findFeed(hashRefreshToken(token));
  }
}
