import { describe, expect, it } from 'vitest';
import { applyPatch, checkInvariants, checkRequiredOnCreate, createFields } from './record-state.js';
import { toWireRecord } from './snapshot.js';

describe('record state', () => {
  it('applies patches: absent unchanged, null clears', () => {
    expect(applyPatch({ title: 'a', notes: 'n', priority: 3 }, { notes: null, priority: 4 })).toEqual({ title: 'a', notes: null, priority: 4 });
  });
  it('fills create defaults and nulls', () => {
    expect(createFields('tasks', { title: 't' })).toEqual({
      title: 't', notes: null, dueAt: null, completed: false, completedAt: null, priority: null, parentTaskUid: null,
    });
    expect(createFields('calendars', { name: 'c' }).isDefault).toBe(false);
  });
  it('names the missing field on create', () => {
    expect(checkRequiredOnCreate('events', createFields('events', { title: 't' }))).toEqual({
      code: 'CALENDAR_REQUIRED', message: 'calendarUid required for create', retryable: false,
    });
    expect(checkRequiredOnCreate('reminders', createFields('reminders', {}))).toEqual({
      code: 'PARENT_REQUIRED', message: 'eventUid or taskUid required for create', retryable: false,
    });
    const missingTitle = checkRequiredOnCreate('tasks', createFields('tasks', {}));
    expect(missingTitle?.code).toBe('INVALID_FIELD');
    expect(missingTitle?.message).toContain('title');
    expect(checkRequiredOnCreate('calendars', createFields('calendars', { name: 'x' }))).toBeNull();
  });
  it('checks merged invariants', () => {
    const ev = { startTime: '2024-01-02T00:00:00.000Z', endTime: '2024-01-01T00:00:00.000Z' };
    expect(checkInvariants('events', { ...createFields('events', {}), ...ev, calendarUid: 'c', title: 't' })?.code).toBe('INVALID_FIELD');
    expect(checkInvariants('reminders', { eventUid: 'e', taskUid: 't' })?.message).toContain('not both');
    expect(checkInvariants('reminders', { eventUid: 'e', taskUid: null })).toBeNull();
    expect(checkInvariants('reminders', { eventUid: 'e', minutesBefore: 10, remindAt: '2024-01-01T00:00:00.000Z' })?.message)
      .toContain('minutesBefore or remindAt');
    expect(checkInvariants('reminders', { eventUid: 'e', minutesBefore: 10, remindAt: null })).toBeNull();
  });
  it('snapshots rows with the version as a string and every field present', () => {
    const wire = toWireRecord({
      type: 'calendars', id: 7, userId: 1, uid: 'c1', version: 12345678901234567n, createdAt: 'a', updatedAt: 'b', deleted: null,
      fields: { name: 'n' },
    });
    expect(wire).toEqual({ name: 'n', color: null, timezone: null, isDefault: null, id: 7, uid: 'c1', version: '12345678901234567', deleted: null, createdAt: 'a', updatedAt: 'b' });
  });
});
