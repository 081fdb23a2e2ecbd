import { createSyncClient, IndexedDbStore, type SyncClient } from '@calsync/client';
import { rememberingFetch } from './account-api.js';

/** The IndexedDB database the SDK keeps this browser's copy in (wiped on sign out). */
export const DATABASE_NAME = 'calsync';

/** Where the API lives: VITE_API_URL at build time, else the origin that served the app. */
export const API_BASE_URL: string = (import.meta.env.VITE_API_URL as string | undefined) || window.location.origin;

function browserName(): string {
  const ua = navigator.userAgent;
  if (/Edg\//.test(ua)) return 'Edge';
  if (/Firefox\//.test(ua)) return 'Firefox';
  if (/Chrome\//.test(ua)) return 'Chrome';
  if (/Safari\//.test(ua)) return 'Safari';
  return 'Browser';
}

/**
 * The one SDK client of this tab. Everything the screens show comes from it; everything they
 * change goes through it (local write first, outbox, sync in the background).
 */
export const client: SyncClient = createSyncClient({
  baseUrl: API_BASE_URL,
  store: new IndexedDbStore(DATABASE_NAME),
  device: { platform: 'web', name: `calsync web on ${browserName()}` },
  fetch: rememberingFetch,
});
