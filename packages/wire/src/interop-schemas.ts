import { UID_PATTERN } from '@calsync/domain/rules';
import { Type } from '@sinclair/typebox';
import { deviceDtoSchema } from './auth-schemas.js';

/** Body of POST /api/auth/app-passwords. */
export const appPasswordBodySchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'what the password is for, e.g. "Thunderbird on the laptop" (the device name)' }),
});

/** `data` of POST /api/auth/app-passwords. */
export const appPasswordResultSchema = Type.Object(
  {
    password: Type.String({ description: 'the app password, shown this once: the CalDAV sign-in with the phone number or e-mail address' }),
    device: deviceDtoSchema,
  },
  { title: 'AppPassword' },
);

/** Body of POST /api/feeds. */
export const feedBodySchema = Type.Object({ calendarUid: Type.String({ pattern: UID_PATTERN.source, description: 'the calendar the feed shows' }) });

/** A subscription feed as listed (never with its token). */
export const feedSchema = Type.Object(
  {
    id: Type.Integer(),
    calendarUid: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Feed' },
);

/** `data` of POST /api/feeds: the feed and its URL, shown this once. */
export const createdFeedSchema = Type.Object(
  {
    id: Type.Integer(),
    calendarUid: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    url: Type.String({ description: 'the subscription URL (…/feeds/<token>.ics); only a hash of the token is kept' }),
  },
  { title: 'CreatedFeed' },
);

/** `data` of GET /api/feeds. */
export const feedListSchema = Type.Object({ feeds: Type.Array(feedSchema) }, { title: 'FeedList' });

/** Path of DELETE /api/feeds/{id}. */
export const feedParamsSchema = Type.Object({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'the feed id' }) });

/** Path of GET /feeds/{file}: the token and `.ics`. */
export const feedFileParamsSchema = Type.Object({ file: Type.String({ maxLength: 200, description: '<token>.ics, as in the url POST /api/feeds answered' }) });
