import type { FeedStore } from '@calsync/domain';
import { describe, expect, it } from 'vitest';

/** What the feed contract needs from one adapter: a store and users to own feeds (SQL stores reference users). */
export interface FeedHarness {
  readonly feeds: FeedStore;
  createUser(): Promise<number>;
  close(): Promise<void>;
}

/** The `FeedStore` guarantees (ports/feed-store.ts), the same cases for every adapter. */
export function runFeedStoreContract(name: string, open: () => Promise<FeedHarness>): void {
  describe(`feed store contract: ${name}`, () => {
    it('creates, lists, finds by token hash until revoked, never across users', async () => {
      const h = await open();
      try {
        const [a, b] = [await h.createUser(), await h.createUser()];
        const now = '2026-03-01T10:00:00.000Z';
        const one = await h.feeds.createFeed(a, 'cal-home', '1'.repeat(64), now);
        const two = await h.feeds.createFeed(a, 'cal-work', '2'.repeat(64), now);
        await h.feeds.createFeed(b, 'cal-home', '3'.repeat(64), now);
        expect(one).toMatchObject({ userId: a, calendarUid: 'cal-home' });
        expect(Date.parse(one.createdAt)).toBe(Date.parse(now));
        expect((await h.feeds.listFeeds(a)).map((f) => f.calendarUid)).toEqual(['cal-home', 'cal-work']);
        expect(await h.feeds.findFeed('1'.repeat(64))).toMatchObject({ id: one.id, userId: a });
        expect(await h.feeds.findFeed('9'.repeat(64))).toBeNull();
        expect(await h.feeds.revokeFeed(b, one.id, now)).toBe(false);
        expect(await h.feeds.revokeFeed(a, one.id, now)).toBe(true);
        expect(await h.feeds.revokeFeed(a, one.id, now)).toBe(false);
        expect(await h.feeds.findFeed('1'.repeat(64))).toBeNull();
        expect((await h.feeds.listFeeds(a)).map((f) => f.id)).toEqual([two.id]);
      } finally {
        await h.close();
      }
    });
  });
}
