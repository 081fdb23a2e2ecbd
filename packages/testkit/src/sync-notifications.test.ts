import { CursorCodec, SyncService, type DataChange, type ItemResult, type PushItem, type SyncUnitOfWork } from '@calsync/domain';
import { describe, expect, it } from 'vitest';
import { FixedClock } from './clocks.js';
import { InMemorySyncStore } from './in-memory-sync-store.js';
import { itemByItem } from './push-item-by-item.js';

// What the engine tells the change feed (inside the transaction) and the notifier (after commit).

/** The version an applied item result carries. */
const versionOf = (result: ItemResult | undefined): string => {
  if (!result || result.status === 'error' || result.version === null) throw new Error('no version');
  return result.version;
};
const task = (uid: string, title = uid, baseVersion: string | null = null): PushItem => ({ uid, op: 'upsert', baseVersion, fields: { title } });

function setup(mode: 'whole' | 'item by item') {
  const store = new InMemorySyncStore();
  const committed: DataChange[] = [];
  const announced: DataChange[] = [];
  store.changes.subscribe({ changed: (c) => announced.push(c), sessionEnded: () => {}, resynced: () => {} });
  const engine = new SyncService({ store, clock: new FixedClock(), cursorCodec: new CursorCodec('k'), notifier: { committed: (c) => committed.push(c) } });
  const svc = mode === 'whole' ? engine : itemByItem(engine);
  return { store, svc, committed, announced };
}

describe.each(['whole', 'item by item'] as const)('change notifications, push %s', (mode) => {
  it('a push that wrote rows announces its newest version with the pushing device, then tells the notifier', async () => {
    const { svc, committed, announced } = setup(mode);
    const res = await svc.push(7, { tasks: [task('a'), task('b')] }, 'phone');
    const newest = BigInt(versionOf(res.tasks[1]));
    expect(announced.at(-1)).toEqual({ userId: 7, version: newest, deviceUid: 'phone' });
    expect(committed.at(-1)).toEqual({ userId: 7, version: newest, deviceUid: 'phone' });
    expect(announced.length).toBe(mode === 'whole' ? 1 : 2);
    expect(committed).toEqual(announced);
  });

  it('a push that changed nothing (a replay) announces nothing', async () => {
    const { svc, committed, announced } = setup(mode);
    await svc.push(7, { tasks: [task('a')] }, null);
    announced.length = 0;
    committed.length = 0;
    await svc.push(7, { tasks: [task('a')] }, null);
    expect(announced).toEqual([]);
    expect(committed).toEqual([]);
  });

  it('newestVersion is the user\'s newest row version', async () => {
    const { svc } = setup(mode);
    expect(await svc.newestVersion(7)).toBe(0n);
    const res = await svc.push(7, { tasks: [task('a')] });
    await svc.push(8, { tasks: [task('z')] });
    expect(await svc.newestVersion(7)).toBe(BigInt(versionOf(res.tasks[0])));
  });
});

describe('change notifications of restores and rollbacks', () => {
  it('restoring a conflict announces the restored version; dismissing announces nothing', async () => {
    const { svc, committed } = setup('whole');
    const first = await svc.push(7, { tasks: [task('a', 'one')] }, 'phone');
    await svc.push(7, { tasks: [task('a', 'two', versionOf(first.tasks[0]))] }, 'phone');
    const stale = await svc.push(7, { tasks: [task('a', 'stale', versionOf(first.tasks[0]))] }, 'laptop');
    const conflictId = stale.conflicts[0]!.conflictId;
    committed.length = 0;
    const restored = await svc.resolveConflict(7, conflictId, 'restore', 'laptop');
    expect(committed).toEqual([{ userId: 7, version: BigInt(restored.record!.version), deviceUid: 'laptop' }]);
  });

  it('a unit of work that fails after announcing notifies nobody', async () => {
    const store = new InMemorySyncStore();
    const heard: DataChange[] = [];
    store.changes.subscribe({ changed: (c) => heard.push(c), sessionEnded: () => {}, resynced: () => {} });
    await expect(
      store.inUserTransaction(7, async (uow: SyncUnitOfWork) => {
        await uow.announceChange({ userId: 7, version: 1n, deviceUid: null });
        throw new Error('write failed');
      }),
    ).rejects.toThrow('write failed');
    expect(heard).toEqual([]);
  });
});
