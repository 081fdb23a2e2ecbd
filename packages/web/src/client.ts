import { createSyncClient, IndexedDbStore, type SyncClient } from '@calsync/client';

/** The IndexedDB database the SDK keeps this browser's copy in (wiped on sign out). */
export const DATABASE_NAME = 'calsync';

/** Where the API lives: VITE_API_URL at build time, else the origin that served the app. */
export const API_BASE_URL: string = (import.meta.env.VITE_API_URL as string | undefined) || window.location.origin;

function browserName(ua: string): string {
  if (/Edg\//.test(ua)) return 'Edge';
  if (/SamsungBrowser\//.test(ua)) return 'Samsung Internet';
  if (/Firefox\/|FxiOS\//.test(ua)) return 'Firefox';
  if (/Chrome\/|CriOS\//.test(ua)) return 'Chrome';
  if (/Safari\//.test(ua)) return 'Safari';
  return 'A browser';
}

function systemName(ua: string): string | null {
  if (/Android/.test(ua)) return 'Android';
  if (/iPhone/.test(ua)) return 'iPhone';
  if (/iPad/.test(ua)) return 'iPad';
  if (/CrOS/.test(ua)) return 'ChromeOS';
  if (/Windows/.test(ua)) return 'Windows';
  if (/Mac OS X|Macintosh/.test(ua)) return 'Mac';
  if (/Linux/.test(ua)) return 'Linux';
  return null;
}

/** This browser as people name it in a device list: "Chrome on Android", "Safari on iPhone". */
export function deviceName(ua: string): string {
  const system = systemName(ua);
  return system ? `${browserName(ua)} on ${system}` : browserName(ua);
}

/**
 * This browser's device uid: generated once and kept in localStorage, outside the SDK's IndexedDB
 * database, because sign out empties that database completely. Keeping it means signing in again
 * (or as someone else) re-uses this browser's entry in the account's device list instead of adding
 * a new one; the uid is a random name for the installation, not account data.
 */
function installationUid(): string | undefined {
  const KEY = 'calsync.deviceUid';
  try {
    const known = localStorage.getItem(KEY);
    if (known) return known;
    const uid = `web-${crypto.randomUUID()}`;
    localStorage.setItem(KEY, uid);
    return uid;
  } catch {
    return undefined; // storage blocked: the SDK then names a fresh device at each sign-in
  }
}

const deviceUid = installationUid();

/**
 * The one SDK client of this tab. Everything the screens show comes from it; everything they
 * change goes through it (local write first, outbox, sync in the background).
 */
export const client: SyncClient = createSyncClient({
  baseUrl: API_BASE_URL,
  store: new IndexedDbStore(DATABASE_NAME),
  device: { ...(deviceUid ? { uid: deviceUid } : {}), platform: 'web', name: deviceName(navigator.userAgent) },
});

/**
 * Whether the server ended this tab's session since its last sign-in (device revoked elsewhere,
 * or tokens it no longer accepts, as after a restart with new secrets), as opposed to "Sign out".
 * Listened to from the start, so an end found by the first request after a reload counts too.
 */
export const sessionEnd = (() => {
  let ended = false;
  const listeners = new Set<() => void>();
  const set = (value: boolean): void => {
    if (ended === value) return;
    ended = value;
    for (const l of [...listeners]) l();
  };
  client.auth.onSignedOut(() => set(true));
  client.onStatus((s) => {
    if (s.signedIn) set(false);
  });
  return {
    get ended(): boolean {
      return ended;
    },
    subscribe(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
})();
