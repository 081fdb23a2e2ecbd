import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthService, CursorCodec, SyncService, type SyncApi } from '@calsync/domain';
import { CapturingSmsSender, CheapPasswordHasher, FakeTokenSigner, ManualAuthClock, SeededRandom } from '@calsync/testkit';
import { postgresAuthStores } from './auth/postgres-auth-stores.js';
import { PostgresSyncStore } from './postgres-sync-store.js';
import { announceDatabaseKinds, openTestDatabase, type TestDatabase } from '../test-support/index.js';

// Sign-up that cannot leave a user without "Personal": the process dies (an injected crash) after
// the user was stored and before its default calendar was; a later sign-in makes the calendar,
// exactly one, and no sign-in after it makes another.
describe.each(announceDatabaseKinds('sign-up-crash.pg.test.ts'))('a sign-up that crashed between the user and the calendar (%s)', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase(kind);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('is mended at the next sign-in, with exactly one default calendar', async () => {
    const clock = new ManualAuthClock();
    const sync = new SyncService({ store: new PostgresSyncStore(database.db), clock, cursorCodec: new CursorCodec('k') });
    let crashes = 1;
    const crashing: Pick<SyncApi, 'push'> = {
      push: (userId, changeset, deviceUid) => {
        if (crashes-- > 0) return Promise.reject(new Error('injected crash: the process died here'));
        return sync.push(userId, changeset, deviceUid);
      },
    };
    const sms = new CapturingSmsSender();
    const stores = postgresAuthStores(database.db);
    const auth = new AuthService(
      { ...stores, sync: crashing, sms, hasher: new CheapPasswordHasher(), tokens: new FakeTokenSigner(), clock, random: new SeededRandom(7) },
      { accessTtlSeconds: 900, refreshTtlSeconds: 86400, sessionCacheSeconds: 0, otp: { ttlSeconds: 300, maxAttempts: 5, resendSeconds: 0, maxSendsPerHour: 5, smsMaxPerHour: 1000, smsMaxPerIpPerHour: 10, hmacKey: 'otp' } },
    );
    const phone = '+15550101010';
    const signIn = async () => {
      await auth.sendOtp(phone, 'Crash');
      return auth.verifyOtp(phone, sms.lastCode(phone));
    };
    const defaults = async (userId: number) =>
      (await sync.pull(userId, {})).calendars.filter((c) => c.deleted === null).map((c) => [c.name, c.isDefault]);

    await expect(signIn()).rejects.toThrow('injected crash');
    const stranded = await stores.users.findByPhone(phone);
    expect(stranded?.signUpPending).toBe(true);
    expect(await defaults(stranded!.id)).toEqual([]);

    clock.advanceSeconds(60);
    const later = await signIn();
    expect(later.user.id).toBe(stranded!.id);
    expect(await defaults(stranded!.id)).toEqual([['Personal', true]]);
    expect((await stores.users.findById(stranded!.id))?.signUpPending).toBe(false);

    clock.advanceSeconds(60);
    await signIn();
    expect(await defaults(stranded!.id)).toEqual([['Personal', true]]);
  });
});
