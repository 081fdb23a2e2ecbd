import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory-store.js';
import type { OutboxItem } from '../store/local-store.js';
import type { WireConflict, WireItemResult } from '../wire.js';
import { planOwnWrites, sideOf, wroteVersion } from './conflict-feed.js';
import { LocalState, META } from './local-state.js';

const sentTask = (seq: number, uid: string, baseVersion: string | null): OutboxItem => ({
  seq, type: 'tasks', uid, op: 'upsert', patch: { title: uid }, baseVersion, state: 'inflight', attempts: 0,
  sent: { op: 'upsert', baseVersion, fields: { title: uid } }, waitForPull: false, lastError: null,
});
const updated = (uid: string, version: string) => ({ uid, status: 'updated', version }) as unknown as WireItemResult;
const conflictResult = (uid: string, version: string, conflictId: number) => ({ uid, status: 'conflict', version, conflictId }) as unknown as WireItemResult;
const conflict = (conflictId: number, uid: string, winnerVersion: string, loserVersion: string | null) =>
  ({ conflictId, entityType: 'TASK', entityUid: uid, winnerVersion, loserSnapshot: { uid, version: loserVersion }, createdAt: 'x', resolvedAt: null }) as unknown as WireConflict;

describe("a push's own writes", () => {
  it('are stored per record and per conflict: a push writes the entries of its own items only, however many records the device wrote before', async () => {
    const state = new LocalState(new MemoryStore(), 0);
    for (let i = 0; i < 50; i++) await state.commit(planOwnWrites(state, [sentTask(i, `t${i}`, null)], [updated(`t${i}`, String(100 + i))], []));
    const write = planOwnWrites(state, [sentTask(60, 't7', '107'), sentTask(61, 't60', null)], [updated('t7', '200'), conflictResult('t60', '201', 9)], [conflict(9, 't60', '201', '150')]);
    expect(Object.keys(write.putMeta ?? {}).sort()).toEqual([META.conflictsDue, `${META.conflictSides}:9`, `${META.writtenVersions}:tasks:t60`, `${META.writtenVersions}:tasks:t7`].sort());
    await state.commit(write);
    expect([wroteVersion(state, 'tasks', 't7', '107'), wroteVersion(state, 'tasks', 't7', '200'), wroteVersion(state, 'tasks', 't8', '200')]).toEqual([true, true, false]);
    // Its item applied over a newer version: this device holds the current one.
    expect(sideOf(state, conflict(9, 't60', '201', '150'))).toBe('current');
  });

  it('keeps the last 8 versions of a record, the same record twice in one push included', async () => {
    const state = new LocalState(new MemoryStore(), 0);
    for (let v = 1; v <= 7; v++) await state.commit(planOwnWrites(state, [sentTask(v, 'r', null)], [updated('r', String(v))], []));
    await state.commit(planOwnWrites(state, [sentTask(8, 'r', '7'), sentTask(9, 'r', '8')], [updated('r', '8'), updated('r', '9')], []));
    expect(state.meta.get(`${META.writtenVersions}:tasks:r`)).toEqual(['2', '3', '4', '5', '6', '7', '8', '9']);
    expect(wroteVersion(state, 'tasks', 'r', '1')).toBe(false);
  });

  it('still reads the one map an older client kept, and an entry of its own wins over it', async () => {
    const store = new MemoryStore();
    await store.write({ putMeta: { [META.writtenVersions]: { 'tasks:old': ['5'], 'tasks:both': ['6'] }, [META.conflictSides]: { '3': 'loser' } } });
    const state = new LocalState(store, 0);
    await state.reload();
    expect(wroteVersion(state, 'tasks', 'old', '5')).toBe(true);
    expect(sideOf(state, conflict(3, 'x', '1', '2'))).toBe('loser');
    expect(sideOf(state, conflict(4, 'old', '5', null))).toBe('current');
    await state.commit(planOwnWrites(state, [sentTask(1, 'both', '6')], [updated('both', '7')], []));
    expect([wroteVersion(state, 'tasks', 'both', '6'), wroteVersion(state, 'tasks', 'both', '7')]).toEqual([true, true]);
    // The old map is left as it was.
    expect(state.meta.get(META.writtenVersions)).toEqual({ 'tasks:old': ['5'], 'tasks:both': ['6'] });
  });
});
