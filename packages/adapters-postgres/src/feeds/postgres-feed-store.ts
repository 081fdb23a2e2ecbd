import { sql, type Kysely } from 'kysely';
import type { FeedRecord, FeedStore } from '@calsync/domain';
import type { DB } from '../schema.js';

interface FeedRow {
  id: string;
  user_id: number;
  calendar_uid: string;
  created_at: Date | string;
}

function toFeed(row: FeedRow): FeedRecord {
  return { id: Number(row.id), userId: row.user_id, calendarUid: row.calendar_uid, createdAt: new Date(row.created_at).toISOString() };
}

/** FeedStore on PostgreSQL or PGlite (`calendar_feeds`, migration 0005). */
export class PostgresFeedStore implements FeedStore {
  constructor(private readonly db: Kysely<DB>) {}

  async createFeed(userId: number, calendarUid: string, tokenHash: string, now: string): Promise<FeedRecord> {
    const { rows } = await sql<FeedRow>`
      insert into calendar_feeds (user_id, calendar_uid, token_hash, created_at)
      values (${userId}, ${calendarUid}, ${tokenHash}, cast(${now} as timestamptz))
      returning id, user_id, calendar_uid, created_at`.execute(this.db);
    return toFeed(rows[0]!);
  }

  async listFeeds(userId: number): Promise<FeedRecord[]> {
    const { rows } = await sql<FeedRow>`
      select id, user_id, calendar_uid, created_at from calendar_feeds
      where user_id = ${userId} and revoked_at is null order by id`.execute(this.db);
    return rows.map(toFeed);
  }

  async revokeFeed(userId: number, id: number, now: string): Promise<boolean> {
    const { rows } = await sql<{ id: string }>`
      update calendar_feeds set revoked_at = cast(${now} as timestamptz)
      where user_id = ${userId} and id = ${id} and revoked_at is null returning id`.execute(this.db);
    return rows.length > 0;
  }

  async findFeed(tokenHash: string): Promise<FeedRecord | null> {
    const { rows } = await sql<FeedRow>`
      select id, user_id, calendar_uid, created_at from calendar_feeds
      where token_hash = ${tokenHash} and revoked_at is null`.execute(this.db);
    return rows[0] ? toFeed(rows[0]) : null;
  }
}
