import { afterAll, beforeAll } from 'vitest';
import type { DeviceStore, NewRefreshToken, OtpStore, SessionStore, UserRecord, UserStore } from '@calsync/domain';
import { SeededRandom } from '../seeded-random.js';

/** The sign-in stores of one adapter under the contract suites, opened on one database. */
export interface AuthStoresUnderTest {
  readonly users: UserStore;
  readonly devices: DeviceStore;
  readonly sessions: SessionStore;
  readonly otps: OtpStore;
  close(): Promise<void>;
}

/** Opens the stores of one adapter on a fresh database. */
export type OpenAuthStores = () => Promise<AuthStoresUnderTest>;

/** Fixed instants, so stored times compare exactly. */
export const T0 = '2030-01-01T00:00:00.000Z';
export const T1 = '2030-01-01T00:01:00.000Z';

/** Ids, phones and tokens for one contract run: a counter and the seeded random, so a run replays exactly. */
export class AuthFixtures {
  readonly #random: SeededRandom;
  #seq = 0;

  constructor(seed: number) {
    this.#random = new SeededRandom(seed);
  }

  /** A fresh id with a prefix. */
  unique(prefix: string): string {
    return `${prefix}${(this.#seq++).toString(36)}`;
  }

  /** A phone number in E.164 form. */
  phone(): string {
    return `+4915${String(this.#random.int(1e9)).padStart(9, '0')}`;
  }

  /** A refresh token of a family, first (no parent) or the child of `parentHash`. */
  token(sessionId: string, parentHash: string | null = null): NewRefreshToken {
    return { tokenHash: this.unique('h'), sessionId, parentHash, createdAt: T0, expiresAt: '2030-04-01T00:00:00.000Z' };
  }

  /** A new phone user of the store. */
  async newUser(users: UserStore, name = 'Ann'): Promise<UserRecord> {
    return (await users.createPhoneUser({ phone: this.phone(), name, now: T0 })).user;
  }
}

/** Opens the stores before the describe block's cases and closes them after; the getter returns them. */
export function openForSuite(open: OpenAuthStores): () => AuthStoresUnderTest {
  let stores: AuthStoresUnderTest | undefined;
  beforeAll(async () => {
    stores = await open();
  });
  afterAll(async () => {
    await stores?.close();
  });
  return () => {
    if (!stores) throw new Error('auth stores are not open');
    return stores;
  };
}
