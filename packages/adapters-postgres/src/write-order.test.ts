import { describe, expect, it } from 'vitest';
import type { RowWrite } from '@calsync/domain';
import { orderForDefaultCalendar } from './write-order.js';

function cal(kind: 'insert' | 'update', uid: string, isDefault: boolean, deleted: string | null = null): RowWrite {
  const row = { type: 'calendars' as const, userId: 1, uid, version: 1n, createdAt: 'x', updatedAt: 'x', deleted, fields: { name: uid, isDefault } };
  return kind === 'insert' ? { kind, row } : { kind, row: { ...row, id: 1 } };
}

describe('orderForDefaultCalendar', () => {
  it('keeps the order when nothing becomes a live default', () => {
    expect(orderForDefaultCalendar([cal('update', 'a', false), cal('insert', 'b', false)])).toEqual([0, 1]);
  });

  it('moves a later demotion ahead of the promotion, keeping the rest in order', () => {
    const writes = [cal('insert', 'x', false), cal('update', 'new', true), cal('insert', 'y', false), cal('update', 'old', false)];
    expect(orderForDefaultCalendar(writes)).toEqual([0, 3, 1, 2]);
  });

  it('treats a tombstoning update as a demotion', () => {
    const writes = [cal('insert', 'new', true), cal('update', 'old', true, '2024-01-01T00:00:00.000Z')];
    expect(orderForDefaultCalendar(writes)).toEqual([1, 0]);
  });

  it('keeps the order for a uid written twice', () => {
    const writes = [cal('update', 'a', true), cal('update', 'a', false)];
    expect(orderForDefaultCalendar(writes)).toEqual([0, 1]);
  });
});
