import { InMemoryDeviceStore } from './in-memory-device-store.js';
import { InMemoryOtpStore } from './in-memory-otp-store.js';
import { InMemorySessionStore } from './in-memory-session-store.js';
import { InMemoryUserStore } from './in-memory-user-store.js';

/** The sign-in stores in memory, wired together as `AuthService` takes them (spread them into its deps). */
export interface InMemoryAuthStores {
  readonly users: InMemoryUserStore;
  readonly devices: InMemoryDeviceStore;
  readonly sessions: InMemorySessionStore;
  readonly otps: InMemoryOtpStore;
}

/** Fresh in-memory user, device, session and one-time-code stores (the device store ends families in the session store). */
export function inMemoryAuthStores(): InMemoryAuthStores {
  const sessions = new InMemorySessionStore();
  return { users: new InMemoryUserStore(), devices: new InMemoryDeviceStore(sessions), sessions, otps: new InMemoryOtpStore() };
}
