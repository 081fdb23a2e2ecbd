import { createSyncClient, type SyncClient, type SyncClientOptions } from '../src/index.js';
import { MemoryStore } from '../src/store/memory-store.js';
import type { InMemoryService } from './in-memory-service.js';

/** A client of the in-memory service with short timers; `store` lets a test reopen the same device. */
export async function clientOf(
  service: Pick<InMemoryService, 'fetch'>,
  options: Partial<SyncClientOptions> = {},
): Promise<SyncClient> {
  const client = createSyncClient({
    baseUrl: 'http://calsync.test',
    store: new MemoryStore(),
    device: { platform: 'test', name: 'test device' },
    fetch: service.fetch,
    debounceMs: 5,
    // No wait for another device to settle a conflict: these tests sync one device after another.
    settleWaitMs: 0,
    random: () => 0.5,
    ...options,
  });
  await client.open();
  return client;
}

/** Signs `client` in by SMS code read from the service's capturing sender. */
export async function signIn(service: Pick<InMemoryService, 'sms'>, client: SyncClient, phone: string): Promise<void> {
  await client.auth.sendOtp(phone);
  await client.auth.verifyOtp(phone, service.sms.lastCode(phone));
}

/**
 * Two devices of one phone number, both holding a task `title` that A made (synced on both): the
 * start of a conflict. `aOptions` are A's client options (e.g. its own `fetch`).
 */
export async function twoDevicesWithTask(
  service: Pick<InMemoryService, 'fetch' | 'sms'>,
  phone: string,
  title: string,
  aOptions: Partial<SyncClientOptions> = {},
): Promise<{ a: SyncClient; b: SyncClient; uid: string }> {
  const a = await clientOf(service, aOptions);
  const b = await clientOf(service);
  await signIn(service, a, phone);
  await signIn(service, b, phone);
  const uid = await a.tasks.put({ title });
  await a.sync();
  await b.sync();
  return { a, b, uid };
}
