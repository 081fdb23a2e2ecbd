import { FixedClock, ForwardingSyncStore, InMemorySyncStore, itemByItem } from '@calsync/testkit';
import { describe, expect, it } from 'vitest';
import { CursorCodec } from '../cursor/cursor-codec.js';
import type { RowWrite, SyncUnitOfWork } from '../ports/sync-store.js';
import { SyncService, type ItemFailure } from './sync-service.js';

/**
 * A stand-in store: the in-memory store, except that writing a row titled "poison" fails the way a
 * database refuses a value (a plain Error, as a driver throws), so the whole unit of work fails.
 */
class PoisonedStore extends ForwardingSyncStore<InMemorySyncStore> {
  units = 0;

  constructor() {
    super(new InMemorySyncStore());
  }

  override inUserTransaction<T>(userId: number, work: (uow: SyncUnitOfWork) => Promise<T>): Promise<T> {
    this.units++;
    return this.inner.inUserTransaction(userId, (uow) =>
      work(
        Object.assign(Object.create(uow) as SyncUnitOfWork, {
          applyWrites: async (writes: readonly RowWrite[]) => {
            if (writes.some((w) => w.row.fields.title === 'poison')) throw new Error('22021 invalid byte sequence (stand-in)');
            return uow.applyWrites(writes);
          },
        }),
      ),
    );
  }
}

const T0 = '2024-05-01T10:00:00.000Z';
const T1 = '2024-05-01T11:00:00.000Z';
const task = (uid: string, title: string) => ({ uid, op: 'upsert' as const, baseVersion: null, fields: { title } });

describe.each(['whole', 'item by item'] as const)('a storage error caused by one item (push %s)', (mode) => {
  it('fails only that item with a per-item error; the other items of the batch apply, and a retry answers the same', async () => {
    const store = new PoisonedStore();
    const failures: ItemFailure[] = [];
    const engine = new SyncService({ store, clock: new FixedClock(), cursorCodec: new CursorCodec('k'), onItemFailure: (f) => failures.push(f) });
    const svc = mode === 'whole' ? engine : itemByItem(engine);
    const changeset = {
      calendars: [{ uid: 'cal', op: 'upsert' as const, baseVersion: null, fields: { name: 'Home' } }],
      events: [{ uid: 'ev', op: 'upsert' as const, baseVersion: null, fields: { calendarUid: 'cal', title: 'fine', startTime: T0, endTime: T1 } }],
      tasks: [task('t1', 'first'), task('t2', 'poison'), task('t3', 'third')],
    };
    const out = await svc.push(7, changeset);
    expect(out.calendars[0]).toMatchObject({ uid: 'cal', status: 'created' });
    expect(out.events[0]).toMatchObject({ uid: 'ev', status: 'created' });
    expect(out.tasks.map((r) => r.status)).toEqual(['created', 'error', 'created']);
    expect(out.tasks[1]).toMatchObject({ uid: 't2', error: { code: 'INVALID_FIELD', retryable: false } });
    expect(failures).toEqual([{ userId: 7, type: 'tasks', uid: 't2', error: expect.any(Error) }]);
    expect(store.inner.snapshotRows(7, 'tasks').map((r) => r.uid).sort()).toEqual(['t1', 't3']);

    const again = await svc.push(7, changeset);
    expect(again.tasks.map((r) => r.status)).toEqual(['created', 'error', 'created']);
    expect(again.tasks[0]).toEqual(out.tasks[0]);
    expect(store.inner.snapshotRows(7, 'tasks')).toHaveLength(2);
  });
});
