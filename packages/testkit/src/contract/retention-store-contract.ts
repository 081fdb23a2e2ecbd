import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { perRecordType, type OtpStore, type RenderStore, type RetentionKind, type RetentionStore, type SessionStore, type SyncStore, type UserStore } from '@calsync/domain';
import { deferred, insertRows, receiptsOf, sampleFields, fp } from './fixtures.js';

/** What the retention contract needs: the store under test, a second node's on the same database, and the stores that fill it. */
export interface RetentionHarness {
  readonly retention: RetentionStore;
  /** The same database seen by another node (its own connection pool where the engine has one). */
  readonly otherNode: RetentionStore;
  readonly store: SyncStore;
  readonly users: UserStore;
  readonly sessions: SessionStore;
  readonly otps: OtpStore;
  /** The kept CalDAV renders on the same database. */
  readonly renders: RenderStore;
  close(): Promise<void>;
}

const PAST = '2001-01-01T00:00:00.000Z';
const DELETED = '2020-06-01T00:00:00.000Z';
const AFTER_DELETED = '2020-07-01T00:00:00.000Z';
const FUTURE = '2999-01-01T00:00:00.000Z';

/** Purges `kind` with `before` until nothing more goes; the rows removed. */
async function purgeAll(retention: RetentionStore, kind: RetentionKind, before: string, limit = 100): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await retention.purge(kind, before, limit);
    expect(n).toBeLessThanOrEqual(limit);
    total += n;
    if (n === 0) return total;
  }
}

/**
 * The `RetentionStore` contract: each kind removes what its rule names and nothing else, within
 * the limit; tombstones go children first and raise the user's purge horizon as the pull reads it;
 * one maintenance run at a time across nodes. Each case makes its own users and rows.
 */
export function runRetentionStoreContract(name: string, open: () => Promise<RetentionHarness>): void {
  describe(`RetentionStore contract: ${name}`, () => {
    let harness: RetentionHarness | undefined;
    beforeAll(async () => {
      harness = await open();
    });
    afterAll(async () => {
      await harness?.close();
    });
    const h = (): RetentionHarness => {
      if (harness === undefined) throw new Error('store not open');
      return harness;
    };
    let phones = 0;
    const newUser = async (): Promise<number> => {
      const phone = `+1555${String(Date.now() % 1e6).padStart(6, '0')}${String(phones++).padStart(3, '0')}`;
      return (await h().users.createPhoneUser({ phone, name: 'Ret', now: PAST })).user.id;
    };
    const changes = (userId: number) =>
      h().store.inUserTransaction(userId, (uow) => uow.readChangesSince(perRecordType(() => 0n), 1000));

    it('removes receipts stored before the horizon and keeps newer ones', async () => {
      const { store, retention } = h();
      const user = await newUser();
      const keys = [{ type: 'events' as const, uid: 'r1', fingerprint: fp('f') }, { type: 'tasks' as const, uid: 'r2', fingerprint: fp('f') }];
      await store.inUserTransaction(user, (uow) => uow.saveReceipts(keys.map((k) => ({ ...k, result: { status: 'created' } }))));
      await purgeAll(retention, 'receipts', PAST);
      expect(await store.inUserTransaction(user, (uow) => receiptsOf(uow, keys))).toHaveLength(2);
      expect(await purgeAll(retention, 'receipts', FUTURE, 1)).toBeGreaterThanOrEqual(2);
      expect(await store.inUserTransaction(user, (uow) => receiptsOf(uow, keys))).toEqual([]);
    });

    it('removes old tombstones children first, keeps live rows and referenced tombstones, and raises the purge horizon', async () => {
      const { store, retention } = h();
      const user = await newUser();
      const rows = await insertRows(store, user, [
        { type: 'calendars', uid: 'c-gone', fields: sampleFields('calendars'), deleted: DELETED },
        { type: 'events', uid: 'e-gone', fields: sampleFields('events', { calendarUid: 'c-gone' }), deleted: DELETED },
        { type: 'reminders', uid: 'r-gone', fields: sampleFields('reminders', { eventUid: 'e-gone' }), deleted: DELETED },
        { type: 'calendars', uid: 'c-held', fields: sampleFields('calendars'), deleted: DELETED },
        { type: 'events', uid: 'e-live', fields: sampleFields('events', { calendarUid: 'c-held' }) },
        { type: 'tasks', uid: 't-new', fields: sampleFields('tasks'), deleted: AFTER_DELETED },
      ]);
      const versionOf = (uid: string) => rows.find((r) => r.uid === uid)!.version;
      expect((await changes(user)).purgedThrough).toBe(0n);

      expect(await purgeAll(retention, 'tombstones', DELETED)).toBe(0);
      expect(await purgeAll(retention, 'tombstones', AFTER_DELETED)).toBeGreaterThanOrEqual(3);
      const after = await changes(user);
      const left = Object.values(after.rows).flatMap((c) => c.wire.map((text) => JSON.parse(text) as { uid: string })).map((r) => r.uid).sort();
      expect(left).toEqual(['c-held', 'e-live', 't-new']);
      const removedVersions = ['c-gone', 'e-gone', 'r-gone'].map(versionOf);
      expect(after.purgedThrough).toBe(removedVersions.reduce((a, b) => (a > b ? a : b)));

      // The horizon never goes back, and another user's is untouched.
      const other = await newUser();
      await insertRows(store, other, [{ type: 'tasks', uid: 't-other', fields: sampleFields('tasks'), deleted: DELETED }]);
      await purgeAll(retention, 'tombstones', AFTER_DELETED);
      expect((await changes(user)).purgedThrough).toBe(after.purgedThrough);
      expect((await changes(other)).purgedThrough).toBeGreaterThan(after.purgedThrough);
    });

    it('removes departures of moved events with the tombstones of their time, and raises the purge horizon an object read answers', async () => {
      const { store, retention } = h();
      const user = await newUser();
      await insertRows(store, user, [
        { type: 'calendars', uid: 'dp-home', fields: sampleFields('calendars') },
        { type: 'calendars', uid: 'dp-work', fields: sampleFields('calendars') },
        { type: 'events', uid: 'dp-old', fields: { ...sampleFields('events', { calendarUid: 'dp-home' }), rrule: null, exdate: null } },
        { type: 'events', uid: 'dp-new', fields: { ...sampleFields('events', { calendarUid: 'dp-home' }), rrule: null, exdate: null } },
      ]);
      const move = (uid: string, at: string) =>
        store.inUserTransaction(user, async (uow) => {
          const [row] = (await uow.prefetch({ ...perRecordType(() => []), events: [uid] }, [])).rows.events;
          const [version] = (await uow.reserve({ versions: 1 })).versions;
          await uow.applyWrites([{ kind: 'update', row: { ...row!, version: version!, updatedAt: at, fields: { ...row!.fields, calendarUid: 'dp-work' } }, leaves: 'dp-home' }]);
          return version!;
        });
      const old = await move('dp-old', DELETED);
      const recent = await move('dp-new', AFTER_DELETED);
      const departed = async () => (await store.readObjects(user, { calendarUid: 'dp-home' })).departures.map((d) => d.uid);
      expect(await departed()).toEqual(['dp-new', 'dp-old']);
      await purgeAll(retention, 'tombstones', DELETED);
      expect(await departed()).toEqual(['dp-new', 'dp-old']);
      expect(await purgeAll(retention, 'tombstones', AFTER_DELETED)).toBeGreaterThanOrEqual(1);
      expect(await departed()).toEqual(['dp-new']);
      const read = await store.readObjectsChangedSince(user, { calendarUid: 'dp-home' }, 0n);
      expect(read.purgedThrough).toBe(old);
      expect(read.departures.map((d) => d.version)).toEqual([recent]);
      expect((await changes(user)).purgedThrough).toBe(old);
      // The events themselves live on in the calendar they went to.
      expect((await store.readObjects(user, { calendarUid: 'dp-work' })).roots.map((r) => r.uid)).toEqual(['dp-old', 'dp-new']);
    });

    it('removes at most the limit of tombstones in one call', async () => {
      const { store, retention } = h();
      const user = await newUser();
      await insertRows(store, user, ['a', 'b', 'c'].map((uid) => ({ type: 'tasks' as const, uid: `lim-${uid}`, fields: sampleFields('tasks'), deleted: DELETED })));
      await purgeAll(retention, 'tombstones', PAST);
      expect(await retention.purge('tombstones', AFTER_DELETED, 2)).toBeLessThanOrEqual(2);
      await purgeAll(retention, 'tombstones', AFTER_DELETED, 2);
      expect(Object.values((await changes(user)).rows).flatMap((c) => c.wire)).toEqual([]);
    });

    it('removes resolved conflicts before the horizon and keeps unresolved ones', async () => {
      const { store, retention } = h();
      const user = await newUser();
      const ids = await store.inUserTransaction(user, async (uow) => {
        const { conflictIds } = await uow.reserve({ conflictIds: 2 });
        await uow.insertConflicts(
          conflictIds.map((conflictId) => ({
            conflictId, userId: user, type: 'events' as const, uid: `cf-${conflictId}`, winnerVersion: 1n,
            loserSnapshot: { uid: `cf-${conflictId}`, version: null }, createdAt: DELETED,
          })),
        );
        await uow.markConflictResolved(conflictIds[0]!, DELETED);
        return conflictIds;
      });
      await purgeAll(retention, 'conflicts', DELETED);
      expect(await store.inUserTransaction(user, (uow) => uow.lockConflict(ids[0]!))).not.toBeNull();
      expect(await purgeAll(retention, 'conflicts', AFTER_DELETED)).toBeGreaterThanOrEqual(1);
      expect(await store.inUserTransaction(user, (uow) => uow.lockConflict(ids[0]!))).toBeNull();
      expect((await store.listUnresolvedConflicts(user, 0, 10)).map((c) => c.conflictId)).toEqual([ids[1]]);
    });

    it('removes revoked and expired sign-in sessions, expired refresh tokens, expired codes and old sends', async () => {
      const { sessions, otps, retention } = h();
      const user = await newUser();
      const now = '2030-06-01T00:00:00.000Z';
      const token = (sessionId: string, hash: string, expiresAt: string) => ({ tokenHash: hash, sessionId, parentHash: null, createdAt: PAST, expiresAt });
      const tag = `${user}`;
      await sessions.startSession({ id: `s-exp-${tag}`, userId: user, deviceUid: null, createdAt: PAST }, token(`s-exp-${tag}`, `h-exp-${tag}`, DELETED));
      await sessions.startSession({ id: `s-rev-${tag}`, userId: user, deviceUid: null, createdAt: PAST }, token(`s-rev-${tag}`, `h-rev-${tag}`, FUTURE));
      await sessions.revokeSession(`s-rev-${tag}`, 'logout', DELETED);
      await sessions.startSession({ id: `s-live-${tag}`, userId: user, deviceUid: null, createdAt: PAST }, token(`s-live-${tag}`, `h-live-old-${tag}`, DELETED));
      expect(await sessions.rotateRefreshToken(`h-live-old-${tag}`, token(`s-live-${tag}`, `h-live-${tag}`, FUTURE), PAST)).toBe(true);
      const phones = [`+1999${tag.padStart(7, '0')}1`, `+1999${tag.padStart(7, '0')}2`];
      const otp = (phone: string, expiresAt: string) => ({ phone, codeHmac: 'x', name: null, createdAt: PAST, expiresAt, attempts: 0, consumedAt: null });
      await otps.saveOtp(otp(phones[0]!, DELETED));
      await otps.saveOtp(otp(phones[1]!, FUTURE));
      await otps.recordOtpSend(phones[0]!, DELETED, null);
      await otps.recordOtpSend(phones[0]!, FUTURE, null);

      await purgeAll(retention, 'sessions', PAST);
      await purgeAll(retention, 'codes', PAST);
      await purgeAll(retention, 'codeSends', PAST);
      expect(await sessions.findSession(`s-exp-${tag}`)).not.toBeNull();
      expect(await otps.findOtp(phones[0]!)).not.toBeNull();

      expect(await purgeAll(retention, 'sessions', now)).toBeGreaterThanOrEqual(3);
      expect(await purgeAll(retention, 'codes', now)).toBeGreaterThanOrEqual(1);
      expect(await purgeAll(retention, 'codeSends', now)).toBeGreaterThanOrEqual(1);
      expect(await sessions.findSession(`s-exp-${tag}`)).toBeNull();
      expect(await sessions.findSession(`s-rev-${tag}`)).toBeNull();
      expect(await sessions.findSession(`s-live-${tag}`)).not.toBeNull();
      expect(await sessions.findRefreshToken(`h-live-old-${tag}`)).toBeNull();
      expect(await sessions.findRefreshToken(`h-live-${tag}`)).not.toBeNull();
      expect(await otps.findOtp(phones[0]!)).toBeNull();
      expect(await otps.findOtp(phones[1]!)).not.toBeNull();
      expect(await otps.listOtpSendsSince(phones[0]!, PAST)).toEqual([FUTURE]);
    });

    it('removes the kept renders of objects no longer live (deleted, purged or never stored), within the limit, and keeps those of live objects', async () => {
      const { store, retention, renders } = h();
      const [user, other] = [await newUser(), await newUser()];
      await insertRows(store, user, [
        { type: 'calendars', uid: 'rc', fields: sampleFields('calendars') },
        { type: 'events', uid: 'e-live', fields: sampleFields('events', { calendarUid: 'rc' }) },
        { type: 'events', uid: 'e-dead', fields: sampleFields('events', { calendarUid: 'rc' }), deleted: DELETED },
        { type: 'tasks', uid: 't-live', fields: sampleFields('tasks') },
        { type: 'tasks', uid: 't-dead', fields: sampleFields('tasks'), deleted: DELETED },
      ]);
      // The other user has live objects under the uids whose objects are gone for the first.
      await insertRows(store, other, [
        { type: 'calendars', uid: 'rc', fields: sampleFields('calendars') },
        { type: 'events', uid: 'e-dead', fields: sampleFields('events', { calendarUid: 'rc' }) },
        { type: 'tasks', uid: 'gone', fields: sampleFields('tasks') },
      ]);
      const render = (uid: string) => ({ uid, key: `k-${uid}`, text: `text of ${uid}` });
      const uids = ['e-live', 'e-dead', 't-live', 't-dead', 'gone', 'a-late'];
      await renders.keepRenders(user, uids.filter((uid) => uid !== 'a-late').map(render));
      await renders.keepRenders(other, ['e-dead', 'gone'].map(render));
      const kept = async (u: number) => (await renders.readRenders(u, uids)).map((r) => r.uid).sort();

      // At most the limit in one call; the rest in later calls, then nothing: also one kept
      // meanwhile that sorts before those already removed.
      expect(await retention.purge('renders', PAST, 1)).toBe(1);
      await renders.keepRenders(user, [render('a-late')]);
      expect(await purgeAll(retention, 'renders', PAST, 1)).toBeGreaterThanOrEqual(3);
      expect(await retention.purge('renders', PAST, 100)).toBe(0);
      expect(await kept(user)).toEqual(['e-live', 't-live']);
      expect(await kept(other)).toEqual(['e-dead', 'gone']);

      // Once the tombstones are purged too, a render kept since is removed all the same.
      await renders.keepRenders(user, [render('e-dead')]);
      await purgeAll(retention, 'tombstones', AFTER_DELETED);
      expect(await purgeAll(retention, 'renders', PAST)).toBeGreaterThanOrEqual(1);
      expect(await kept(user)).toEqual(['e-live', 't-live']);
    });

    it('runs one maintenance run at a time, across nodes', async () => {
      const { retention, otherNode } = h();
      const held = deferred();
      const started = deferred();
      const first = retention.exclusively(async () => {
        started.resolve();
        await held.promise;
        return 'first';
      });
      await started.promise;
      expect(await otherNode.exclusively(async () => 'second')).toEqual({ ran: false });
      expect(await retention.exclusively(async () => 'again')).toEqual({ ran: false });
      held.resolve();
      expect(await first).toEqual({ ran: true, value: 'first' });
      expect(await otherNode.exclusively(async () => 'second')).toEqual({ ran: true, value: 'second' });
    });
  });
}
