import { afterAll, beforeAll, expect, it } from 'vitest';
import { CursorCodec, SyncService, type SyncStore } from '@calsync/domain';
import { ManualClock } from '@calsync/testkit';
import { PostgresSyncStore } from './postgres-sync-store.js';
import { createTestUser, openTestDatabase, type TestDatabase } from '../test-support/index.js';

// PGlite runs a statement synchronously, so without a turn of the event loop before the session is
// taken, a push would run from start to commit before any other request is read, and pushes of one
// user would never meet in the sync service's group commit.
let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase('pglite');
});
afterAll(async () => {
  await database?.close();
});

it('on PGlite, pushes of a user that arrive while one waits for the session are committed together in one unit', async () => {
  const store = new PostgresSyncStore(database.db);
  let units = 0;
  const counting: SyncStore = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key) as unknown;
      if (typeof value !== 'function') return value;
      if (key === 'inUserTransaction') return (...args: Parameters<SyncStore['inUserTransaction']>) => (units++, target.inUserTransaction(...args));
      return value.bind(target);
    },
  });
  const sync = new SyncService({ store: counting, clock: new ManualClock('2026-01-01T00:00:00.000Z'), cursorCodec: new CursorCodec('group-commit-test') });
  const user = await createTestUser(database);
  await sync.push(user, { calendars: [{ uid: 'cal', op: 'upsert', baseVersion: null, fields: { name: 'Home' } }] });
  const event = (uid: string) => ({ events: [{ uid, op: 'upsert' as const, baseVersion: null, fields: { calendarUid: 'cal', title: uid, startTime: '2026-02-01T09:00:00Z', endTime: '2026-02-01T10:00:00Z' } }] });

  units = 0;
  // Two requests read in the same turn of the loop as the first push (as a server reads the
  // requests that arrived together), after it was started.
  const arriving = new Promise<Awaited<ReturnType<SyncService['push']>>[]>((resolve) => setImmediate(() => resolve(Promise.all([sync.push(user, event('b')), sync.push(user, event('c'))]))));
  const first = await sync.push(user, event('a'));
  const [second, third] = await arriving;

  // The first push alone, then the two that came while it waited, in one unit.
  expect(units).toBe(2);
  expect([first, second!, third!].map((r) => r.events.map((e) => [e.uid, e.status]))).toEqual([[['a', 'created']], [['b', 'created']], [['c', 'created']]]);
  const versions = [first, second!, third!].map((r) => BigInt((r.events[0] as { version: string }).version));
  expect([...versions].sort((x, y) => (x < y ? -1 : 1))).toEqual(versions);
  const pulled = await sync.pull(user, {});
  expect(pulled.events.map((e) => e.uid).sort()).toEqual(['a', 'b', 'c']);
});
