import { describe, expect, it } from 'vitest';
import { CursorCodec, SyncService, type PushChangeset, type PushResponse, type RowWrite, type SyncStore, type SyncUnitOfWork } from '@calsync/domain';
import { FixedClock } from '../clocks.js';
import { ForwardingSyncStore } from '../forwarding-sync-store.js';
import { rowsOf, type StoreHarness } from './fixtures.js';

/**
 * The store under test seen through a counter of units of work; writing a task titled "poison"
 * fails the way a database refuses a value (a plain Error), so the whole unit fails.
 */
class CountingStore extends ForwardingSyncStore {
  units = 0;
  /** Calls of `prefetch` on the store's units of work. */
  prefetches = 0;
  override inUserTransaction<T>(userId: number, work: (uow: SyncUnitOfWork) => Promise<T>): Promise<T> {
    this.units++;
    const applyWrites = (uow: SyncUnitOfWork) => async (writes: readonly RowWrite[]) => {
      if (writes.some((w) => w.row.fields.title === 'poison')) throw new Error('22021 invalid byte sequence (stand-in)');
      return uow.applyWrites(writes);
    };
    // Every other member is the unit's own, called on the unit itself (SQL units keep private state).
    return this.inner.inUserTransaction(userId, (uow) =>
      work(
        new Proxy(uow, {
          get: (target, key) => {
            if (key === 'applyWrites') return applyWrites(target);
            if (key === 'prefetch') this.prefetches++;
            const value: unknown = Reflect.get(target, key, target);
            return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
          },
        }),
      ),
    );
  }
}

const T0 = '2024-05-01T10:00:00.000Z';
const T1 = '2024-05-01T11:00:00.000Z';
const calendar = (uid: string): PushChangeset => ({ calendars: [{ uid, op: 'upsert', baseVersion: null, fields: { name: uid } }] });
const event = (uid: string, calendarUid: string, title = uid) => ({ uid, op: 'upsert' as const, baseVersion: null, fields: { calendarUid, title, startTime: T0, endTime: T1 } });
const task = (uid: string, title = uid) => ({ uid, op: 'upsert' as const, baseVersion: null, fields: { title } });

/**
 * Group commit (`SyncService.push`) on the store under test: pushes of one user that arrive while
 * one of that user's pushes runs are committed together in one unit of work, and each answers as
 * if it had run alone, in arrival order.
 */
export function pushGroupCases(harness: () => StoreHarness): void {
  describe('pushes of one user that arrive together', () => {
    const engine = (store: SyncStore, onGroup?: (pushes: number) => void) =>
      new SyncService({ store, clock: new FixedClock(), cursorCodec: new CursorCodec('contract'), ...(onGroup ? { onGroup } : {}) });

    it('are committed in one unit of work, each push with its own results and receipts, as if pushed one after another', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      const counting = new CountingStore(store);
      const groups: number[] = [];
      const svc = engine(counting, (pushes) => groups.push(pushes));
      // The first push runs at once; the next three arrive while it runs and go as one group.
      const [first, second, third, fourth] = await Promise.all([
        svc.push(user, calendar('g-cal')),
        svc.push(user, { events: [event('g-e1', 'g-cal')] }),
        svc.push(user, { events: [event('g-e2', 'g-cal')] }),
        svc.push(user, { events: [event('g-e1', 'g-cal')] }), // the second push again: its receipt answers
      ]);
      expect(counting.units).toBe(2);
      // The engine tells each unit's size as it plans it (the group-size metric).
      expect(groups).toEqual([1, 3]);
      expect(first!.calendars).toMatchObject([{ uid: 'g-cal', status: 'created' }]);
      expect(second!.events).toMatchObject([{ uid: 'g-e1', status: 'created' }]);
      expect(third!.events).toMatchObject([{ uid: 'g-e2', status: 'created' }]);
      expect(fourth!.events).toEqual(second!.events);
      const version = (r: PushResponse, type: 'calendars' | 'events') => BigInt((r[type][0] as { version: string }).version);
      expect(version(first!, 'calendars') < version(second!, 'events')).toBe(true);
      expect(version(second!, 'events') < version(third!, 'events')).toBe(true);
      await store.inUserTransaction(user, async (uow) => {
        expect((await rowsOf(uow, 'events', ['g-e1', 'g-e2'])).map((r) => r.uid)).toEqual(['g-e1', 'g-e2']);
      });
    });

    it('read their prefetches together, and each push sees the rows and receipts the pushes before it wrote', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      const counting = new CountingStore(store);
      const svc = engine(counting);
      const [, made, filled, again, reminded] = await Promise.all([
        svc.push(user, { tasks: [task('d-first')] }),
        svc.push(user, calendar('d-cal')),
        svc.push(user, { events: [event('d-e1', 'd-cal')] }), // names the calendar the push before made
        svc.push(user, { events: [event('d-e1', 'd-cal')] }), // the push before again: its receipt answers
        svc.push(user, { reminders: [{ uid: 'd-r1', op: 'upsert', baseVersion: null, fields: { eventUid: 'd-e1', minutesBefore: 10 } }] }), // names the event made in this group
      ]);
      expect(counting.units).toBe(2);
      // One prefetch for the push that ran alone, one for the group of four.
      expect(counting.prefetches).toBe(2);
      expect(made!.calendars).toMatchObject([{ uid: 'd-cal', status: 'created' }]);
      expect(filled!.events).toMatchObject([{ uid: 'd-e1', status: 'created' }]);
      expect(again!.events).toEqual(filled!.events);
      expect(reminded!.reminders).toMatchObject([{ uid: 'd-r1', status: 'created' }]);
      await store.inUserTransaction(user, async (uow) => {
        expect((await rowsOf(uow, 'events', ['d-e1'])).map((r) => r.fields.calendarUid)).toEqual(['d-cal']);
        expect((await rowsOf(uow, 'reminders', ['d-r1'])).map((r) => r.fields.eventUid)).toEqual(['d-e1']);
      });
    });

    it('a push that fails in storage fails none of the pushes grouped with it', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      const counting = new CountingStore(store);
      const groups: number[] = [];
      const svc = engine(counting, (pushes) => groups.push(pushes));
      const outcomes = await Promise.allSettled([
        svc.push(user, { tasks: [task('p-0')] }),
        svc.push(user, { tasks: [task('p-1')] }),
        svc.push(user, { tasks: [task('p-2'), task('p-poison', 'poison')] }),
        svc.push(user, { tasks: [task('p-3')] }),
      ]);
      const [a, b, c, d] = outcomes.map((o) => (o.status === 'fulfilled' ? o.value : null));
      expect(a!.tasks).toMatchObject([{ uid: 'p-0', status: 'created' }]);
      expect(b!.tasks).toMatchObject([{ uid: 'p-1', status: 'created' }]);
      expect(c!.tasks).toMatchObject([{ uid: 'p-2', status: 'created' }, { uid: 'p-poison', status: 'error', error: { code: 'INVALID_FIELD' } }]);
      expect(d!.tasks).toMatchObject([{ uid: 'p-3', status: 'created' }]);
      // The group of three is told once, as planned, though its pushes then ran one by one.
      expect(groups).toEqual([1, 3]);
      expect(counting.units).toBeGreaterThan(2);
      await store.inUserTransaction(user, async (uow) => {
        expect((await rowsOf(uow, 'tasks', ['p-0', 'p-1', 'p-2', 'p-3', 'p-poison'])).map((r) => r.uid).sort()).toEqual(['p-0', 'p-1', 'p-2', 'p-3']);
      });
    });
  });
}
