import type { SyncApi } from './types.js';

/** Name of the default calendar every new user gets at sign-up. */
export const SIGN_UP_CALENDAR_NAME = 'Personal';

/**
 * Makes a new user's default calendar "Personal" through the sync engine, as a push of one
 * default calendar with a server-made uid: the same decision path as any client's push, so its
 * version comes from the one sequence under the per-user lock. When the user already has a live
 * default (a retried or racing sign-up), the default-merge rule answers that calendar and writes
 * nothing, so calling this again is harmless.
 */
export async function createSignUpCalendar(sync: Pick<SyncApi, 'push'>, userId: number, uid: string): Promise<void> {
  const answer = await sync.push(userId, {
    calendars: [{ uid, op: 'upsert', baseVersion: null, fields: { name: SIGN_UP_CALENDAR_NAME, isDefault: true } }],
  });
  const result = answer.calendars[0];
  if (result === undefined || result.status === 'error') throw new Error(`sign-up calendar not created: ${JSON.stringify(result)}`);
}
