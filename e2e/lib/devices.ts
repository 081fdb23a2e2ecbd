import { createSyncClient, MemoryStore, type SyncClient } from '@calsync/client';
import type { StandInSmsGateway } from '@calsync/testkit';

/**
 * A phone (the SDK, in memory) signed in as `phone` on the server at `base`, with an FCM token, its
 * periodic sync off (an hour) and a short write debounce: what the notification tests drive.
 */
export async function signedInPhone(base: string, phone: string, sms: StandInSmsGateway, name: string, fcmToken: string): Promise<SyncClient> {
  const c = createSyncClient({ baseUrl: base, store: new MemoryStore(), device: { platform: 'android', name, fcmToken }, periodicMs: 3_600_000, debounceMs: 5 });
  await c.open();
  await c.auth.sendOtp(phone);
  await c.auth.verifyOtp(phone, sms.lastCode(phone));
  return c;
}
