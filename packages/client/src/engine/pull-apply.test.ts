import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory-store.js';
import type { OutboxItem } from '../store/local-store.js';
import type { WirePullResponse } from '../wire.js';
import { LocalState } from './local-state.js';
import { planPullPage } from './pull-apply.js';

const task = (uid: string, version: string, parentTaskUid: string | null, notes: string | null = null) => ({
  uid, version, deleted: null, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
  title: uid, notes, dueAt: null, completed: false, completedAt: null, priority: null, parentTaskUid, icalExtras: null,
});
const page = (tasks: ReturnType<typeof task>[]): WirePullResponse =>
  ({ calendars: [], events: [], tasks, reminders: [], cursorReset: false, nextCursor: 'c', hasMore: false }) as unknown as WirePullResponse;
const deleteOf = (uid: string, baseVersion: string): OutboxItem => ({
  seq: 1, type: 'tasks', uid, op: 'delete', patch: {}, baseVersion, state: 'pending', attempts: 0, sent: null, waitForPull: false, lastError: null,
});

describe('a pull page', () => {
  it('leaves out a pulled record below a record whose delete is still queued here (a subtask, a sub-subtask), and takes the others', async () => {
    const state = new LocalState(new MemoryStore(), 0);
    // 'root' was deleted here (with its subtree) and the delete has not reached the server yet.
    state.outbox = [deleteOf('root', '1')];
    // A snapshot (after signing in again, say) still holds the whole tree, and an unrelated task.
    const write = planPullPage(state, page([task('root', '1', null), task('child', '2', 'root'), task('grandchild', '3', 'child'), task('other', '4', null)]));
    expect(write.putRecords?.map((r) => r.uid)).toEqual(['other']);
  });

  it('takes a pulled subtask when nothing above it is being deleted', async () => {
    const state = new LocalState(new MemoryStore(), 0);
    state.outbox = [deleteOf('other', '4')];
    const write = planPullPage(state, page([task('root', '1', null), task('child', '2', 'root')]));
    expect(write.putRecords?.map((r) => r.uid)).toEqual(['root', 'child']);
  });

  it("re-bases a queued edit on the pulled version: its base becomes that version's values; a frozen one keeps the base it went out with", async () => {
    const state = new LocalState(new MemoryStore(), 0);
    const edit = (seq: number, uid: string, sent: boolean): OutboxItem => ({
      seq, type: 'tasks', uid, op: 'upsert', patch: { notes: 'mine' }, base: { notes: null }, baseVersion: null, state: sent ? 'inflight' : 'pending', attempts: 0,
      sent: sent ? { op: 'upsert', baseVersion: '1', fields: { notes: 'mine' } } : null, waitForPull: false, lastError: null,
    });
    state.outbox = [edit(1, 'queued', false), edit(2, 'frozen', true)];
    const write = planPullPage(state, page([task('queued', '2', null, 'theirs'), task('frozen', '2', null, 'theirs')]));
    const bySeq = new Map(write.putOutbox?.map((i) => [i.seq, i]));
    expect([bySeq.get(1)?.base, bySeq.get(2)?.base]).toEqual([{ notes: 'theirs' }, { notes: null }]);
    expect(write.putRecords?.map((r) => [r.uid, r.fields.notes, r.version])).toEqual([['queued', 'mine', '2'], ['frozen', 'mine', '2']]);
  });
});
