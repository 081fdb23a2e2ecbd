import type { FeedRecord, FeedStore } from '@calsync/domain';

/** FeedStore in memory. */
export class InMemoryFeedStore implements FeedStore {
  readonly #feeds: (FeedRecord & { tokenHash: string; revokedAt: string | null })[] = [];

  async createFeed(userId: number, calendarUid: string, tokenHash: string, now: string): Promise<FeedRecord> {
    if (this.#feeds.some((f) => f.tokenHash === tokenHash)) throw new Error('duplicate feed token hash');
    const feed = { id: this.#feeds.length + 1, userId, calendarUid, createdAt: now, tokenHash, revokedAt: null };
    this.#feeds.push(feed);
    return strip(feed);
  }

  async listFeeds(userId: number): Promise<FeedRecord[]> {
    return this.#feeds.filter((f) => f.userId === userId && f.revokedAt === null).map(strip);
  }

  async revokeFeed(userId: number, id: number, now: string): Promise<boolean> {
    const feed = this.#feeds.find((f) => f.id === id && f.userId === userId && f.revokedAt === null);
    if (!feed) return false;
    feed.revokedAt = now;
    return true;
  }

  async findFeed(tokenHash: string): Promise<FeedRecord | null> {
    const feed = this.#feeds.find((f) => f.tokenHash === tokenHash && f.revokedAt === null);
    return feed ? strip(feed) : null;
  }
}

function strip(f: FeedRecord): FeedRecord {
  return { id: f.id, userId: f.userId, calendarUid: f.calendarUid, createdAt: f.createdAt };
}
