/** A subscription feed as stored: which calendar it shows, never its token (only a hash of it is kept). */
export interface FeedRecord {
  readonly id: number;
  readonly userId: number;
  readonly calendarUid: string;
  readonly createdAt: string;
}

/**
 * Storage of subscription feeds (read-only iCalendar URLs of one calendar). Guarantees (checked by
 * `runFeedStoreContract` in testkit, for every adapter):
 * - a feed is found by the hash of its token only until it is revoked; a revoked feed never
 *   comes back;
 * - every read and revoke is scoped to the feed's user.
 */
export interface FeedStore {
  /** Stores a new feed of `calendarUid` under the SHA-256 (hex) of its token. */
  createFeed(userId: number, calendarUid: string, tokenHash: string, now: string): Promise<FeedRecord>;
  /** The user's feeds that are not revoked, oldest first. */
  listFeeds(userId: number): Promise<FeedRecord[]>;
  /** Revokes the user's feed; false when there is no such live feed. */
  revokeFeed(userId: number, id: number, now: string): Promise<boolean>;
  /** The live feed whose token has this SHA-256 (hex), or null. */
  findFeed(tokenHash: string): Promise<FeedRecord | null>;
}
