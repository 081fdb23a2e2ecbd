import type { AppPasswordResultWire, CreatedFeedWire, FeedListWire, FeedWire } from '@calsync/wire';
import { ApiError } from './http/api-error.js';
import type { Transport } from './http/transport.js';

/** Subscription feeds: read-only iCalendar URLs of a calendar, for apps that subscribe (needs the network). */
export interface FeedOperations {
  /** A new feed of the calendar; its `url` is shown this once (only a hash of its token is kept). */
  create(calendarUid: string): Promise<CreatedFeedWire>;
  /** The user's feeds, without their URLs. */
  list(): Promise<FeedWire[]>;
  /** Ends a feed: its URL answers 404 from then on. */
  remove(id: number): Promise<void>;
  /**
   * Stops sharing a calendar: ends every feed of it (the API allows several, and none of their
   * URLs can be shown again), so every URL ever made for it answers 404 once this resolves. A feed
   * that ended meanwhile (on another device) counts as ended. Resolves with how many it ended.
   */
  removeAll(calendarUid: string): Promise<number>;
}

/** App passwords: the CalDAV sign-in of calendar apps (Apple Calendar, Thunderbird, DAVx5); each is a device (needs the network). */
export interface AppPasswordOperations {
  /** A new app password named `name`; the password is shown this once, and revoking its device ends it. */
  create(name: string): Promise<AppPasswordResultWire>;
}

/** The feed and app-password calls over the client's transport. */
export function interopOperations(transport: Transport): { feeds: FeedOperations; appPasswords: AppPasswordOperations } {
  const list = async (): Promise<FeedWire[]> => (await transport.send<FeedListWire>({ method: 'GET', path: '/api/feeds', auth: true })).feeds;
  const remove = async (id: number): Promise<void> => {
    await transport.send({ method: 'DELETE', path: `/api/feeds/${id}`, auth: true });
  };
  return {
    feeds: {
      create: (calendarUid) => transport.send({ method: 'POST', path: '/api/feeds', body: { calendarUid }, auth: true }),
      list,
      remove,
      removeAll: async (calendarUid) => {
        const ending = (await list()).filter((f) => f.calendarUid === calendarUid);
        await Promise.all(
          ending.map(async (f) => {
            try {
              await remove(f.id);
            } catch (err) {
              if (!(err instanceof ApiError && err.code === 'NOT_FOUND')) throw err;
            }
          }),
        );
        return ending.length;
      },
    },
    appPasswords: {
      create: (name) => transport.send({ method: 'POST', path: '/api/auth/app-passwords', body: { name }, auth: true }),
    },
  };
}
