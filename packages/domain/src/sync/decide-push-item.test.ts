import { describe, expect, it } from 'vitest';
import type { RecordRow, RecordType } from '../records/types.js';
import { decidePushItem } from './decide-push-item.js';
import type { RowView } from './row-view.js';

/** A view over a fixed list of rows. */
function viewOf(rows: RecordRow[]): RowView {
  const live = (r: RecordRow) => r.deleted === null;
  return {
    get: (type, uid) => rows.find((r) => r.type === type && r.uid === uid) ?? null,
    liveDefaultCalendars: () => rows.filter((r) => r.type === 'calendars' && live(r) && r.fields.isDefault === true).sort((a, b) => a.id - b.id),
    liveReferencing: (type, field, parent) => rows.filter((r) => r.type === type && live(r) && r.fields[field] === parent),
  };
}
let nextId = 1;
function row(type: RecordType, uid: string, version: bigint, fields: Record<string, string | number | boolean | null>, deleted: string | null = null): RecordRow {
  return { type, id: nextId++, userId: 1, uid, version, createdAt: 'c', updatedAt: 'u', deleted, fields };
}

describe('decidePushItem', () => {
  const cal = row('calendars', 'cal', 5n, { name: 'C', color: null, timezone: null, isDefault: true });
  const ev = row('events', 'ev', 6n, { calendarUid: 'cal', title: 'E', startTime: '2024-01-01T00:00:00.000Z', endTime: '2024-01-01T01:00:00.000Z' });
  const rem = row('reminders', 'rem', 7n, { eventUid: 'ev', taskUid: null, minutesBefore: 5, remindAt: null });
  const dead = row('tasks', 'dead', 8n, { title: 'D' }, '2024-01-01T00:00:00.000Z');
  const view = viewOf([cal, ev, rem, dead]);

  it('cascades a clean calendar delete to its events and their reminders, root first', () => {
    const d = decidePushItem({ type: 'calendars', item: { uid: 'cal', op: 'delete', baseVersion: '5', fields: {} }, view });
    expect(d).toMatchObject({ kind: 'apply', status: 'deleted', report: { type: 'calendars', uid: 'cal' } });
    expect(d.kind === 'apply' && d.writes.map((w) => [w.type, w.uid, w.deleted])).toEqual([
      ['calendars', 'cal', true], ['events', 'ev', true], ['reminders', 'rem', true],
    ]);
  });

  it('keeps the client edit over a tombstone as the loser with the item baseVersion', () => {
    const d = decidePushItem({ type: 'tasks', item: { uid: 'dead', op: 'upsert', baseVersion: '3', fields: { title: 'again' } }, view });
    expect(d).toMatchObject({ kind: 'apply', status: 'conflict', writes: [], loser: { version: 3n, fields: { title: 'again' } } });
  });

  it('merges a new default calendar into the existing one without writing', () => {
    const d = decidePushItem({ type: 'calendars', item: { uid: 'new', op: 'upsert', baseVersion: null, fields: { name: 'N', isDefault: true } }, view });
    expect(d).toEqual({ kind: 'apply', status: 'created', writes: [], report: { type: 'calendars', uid: 'cal' } });
  });

  it('refuses a non-decimal baseVersion and an unknown op without writing', () => {
    expect(decidePushItem({ type: 'tasks', item: { uid: 'x', op: 'upsert', baseVersion: '1e3', fields: {} }, view }).kind).toBe('error');
    const odd = { uid: 'x', op: 'merge', baseVersion: null, fields: {} } as unknown as Parameters<typeof decidePushItem>[0]['item'];
    expect(decidePushItem({ type: 'tasks', item: odd, view }).kind).toBe('error');
  });

  it('refuses odd input the schema should have caught, without writing', () => {
    const odd = (item: unknown) => decidePushItem({ type: 'tasks', item: item as Parameters<typeof decidePushItem>[0]['item'], view });
    expect(odd({ uid: 'bad uid', op: 'upsert', baseVersion: null, fields: { title: 't' } }).kind).toBe('error');
    expect(odd({ uid: 'ok', op: 'upsert', baseVersion: null, fields: null }).kind).toBe('error');
    expect(odd({ uid: 'ok', op: 'upsert', baseVersion: 7, fields: {} }).kind).toBe('error');
  });

  it('refuses a reference to a tombstone as unknown and retryable', () => {
    const d = decidePushItem({ type: 'tasks', item: { uid: 'n', op: 'upsert', baseVersion: null, fields: { title: 't', parentTaskUid: 'dead' } }, view });
    expect(d).toEqual({ kind: 'error', error: { code: 'UNKNOWN_REFERENCE', message: 'unknown parentTaskUid', retryable: true } });
  });
});
