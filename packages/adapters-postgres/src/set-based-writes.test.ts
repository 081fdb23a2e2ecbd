import { describe, expect, it } from 'vitest';
import type { RecordType, RowWrite } from '@calsync/domain';
import { planWriteStatements } from './set-based-writes.js';

function write(kind: 'insert' | 'update', type: RecordType, uid: string, fields: Record<string, unknown> = {}, deleted: string | null = null): RowWrite {
  return { kind, row: { id: 1, type, userId: 1, uid, version: 1n, createdAt: 'x', updatedAt: 'x', deleted, fields: fields as never } };
}

describe('planWriteStatements', () => {
  it('groups by type in reference order, inserts before updates, keeping each group in write order', () => {
    const writes = [
      write('update', 'tasks', 't1'),
      write('insert', 'events', 'e1'),
      write('insert', 'calendars', 'c1'),
      write('insert', 'tasks', 't2'),
      write('insert', 'events', 'e2'),
      write('update', 'reminders', 'r1'),
    ];
    expect(planWriteStatements(writes)).toEqual([
      { type: 'calendars', kind: 'insert', indexes: [2] },
      { type: 'events', kind: 'insert', indexes: [1, 4] },
      { type: 'tasks', kind: 'insert', indexes: [3] },
      { type: 'tasks', kind: 'update', indexes: [0] },
      { type: 'reminders', kind: 'update', indexes: [5] },
    ]);
  });

  it('puts calendar updates that leave no live default (demotions, tombstones) before every other statement', () => {
    const writes = [
      write('update', 'calendars', 'new', { isDefault: true }),
      write('insert', 'calendars', 'other', { isDefault: false }),
      write('update', 'calendars', 'old', { isDefault: false }),
      write('update', 'calendars', 'gone', { isDefault: true }, 'x'),
    ];
    expect(planWriteStatements(writes)).toEqual([
      { type: 'calendars', kind: 'update', indexes: [2, 3] },
      { type: 'calendars', kind: 'insert', indexes: [1] },
      { type: 'calendars', kind: 'update', indexes: [0] },
    ]);
  });

  it('throws when a batch names the same row twice (the port allows one write per row)', () => {
    expect(() => planWriteStatements([write('insert', 'events', 'e1'), write('update', 'events', 'e1')])).toThrow(/twice/);
    expect(planWriteStatements([write('insert', 'events', 'same'), write('insert', 'tasks', 'same')])).toHaveLength(2);
  });
});
