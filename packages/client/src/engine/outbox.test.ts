import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory-store.js';
import { LocalState } from './local-state.js';
import { planPut } from './outbox.js';

describe('a queued edit', () => {
  it('keeps the values its fields had before it: the first edit of a field takes the record\'s value, later edits keep it; a create has none', async () => {
    const state = new LocalState(new MemoryStore(), 0);
    await state.commit({ putRecords: [{ type: 'tasks', uid: 't', version: '5', fields: { title: 'Buy milk', notes: null, completed: false } }] });
    await state.commit(planPut(state, 'tasks', 't', { title: 'Buy oat milk' }));
    await state.commit(planPut(state, 'tasks', 't', { title: 'Buy soy milk', notes: 'two' }));
    expect(state.outbox.map((i) => [i.patch, i.base])).toEqual([[{ title: 'Buy soy milk', notes: 'two' }, { title: 'Buy milk', notes: null }]]);
    await state.commit(planPut(state, 'tasks', 'n', { title: 'New' }));
    expect(state.outbox.at(-1)?.base).toBeUndefined();
  });
});
