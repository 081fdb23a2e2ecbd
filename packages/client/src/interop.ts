import type { AppPasswordResultWire, CreatedFeedWire, FeedListWire } from '@calsync/wire';
import type { Transport } from './http/transport.js';

/** Subscription feeds: read-only iCalendar URLs of a calendar, for apps that subscribe (needs the network). */
export interface FeedOperations {
  /** A new feed of the calendar; its `url` is shown this once (only a hash of its token is kept). */
  create(calendarUid: string): Promise<CreatedFeedWire>;
  /** The user's feeds, without their URLs. */
  list(): Promise<FeedListWire['feeds']>;
  /** Ends a feed: its URL answers 404 from then on. */
  remove(id: number): Promise<void>;
}

/** App passwords: the CalDAV sign-in of calendar apps (Apple Calendar, Thunderbird, DAVx5); each is a device (needs the network). */
export interface AppPasswordOperations {
  /** A new app password named `name`; the password is shown this once, and revoking its device ends it. */
  create(name: string): Promise<AppPasswordResultWire>;
}

/** The feed and app-password calls over the client's transport. */
export function interopOperations(transport: Transport): { feeds: FeedOperations; appPasswords: AppPasswordOperations } {
  return {
    feeds: {
      create: (calendarUid) => transport.send({ method: 'POST', path: '/api/feeds', body: { calendarUid }, auth: true }),
      list: async () => (await transport.send<FeedListWire>({ method: 'GET', path: '/api/feeds', auth: true })).feeds,
      remove: async (id) => {
        await transport.send({ method: 'DELETE', path: `/api/feeds/${id}`, auth: true });
      },
    },
    appPasswords: {
      create: (name) => transport.send({ method: 'POST', path: '/api/auth/app-passwords', body: { name }, auth: true }),
    },
  };
}
