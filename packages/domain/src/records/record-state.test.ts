import { describe, expect, it } from 'vitest';
import { applyPatch, checkImmutable, checkRequiredOnCreate, createFields, settleFields } from './record-state.js';
import { FIELD_TABLES } from './field-tables.js';
import { toWireRecord } from './snapshot.js';

describe('record state', () => {
  it('applies patches: absent unchanged, null clears', () => {
    expect(applyPatch({ title: 'a', notes: 'n', priority: 3 }, { notes: null, priority: 4 })).toEqual({ title: 'a', notes: null, priority: 4 });
  });
  it('fills create defaults and nulls', () => {
    expect(createFields('tasks', { title: 't' })).toEqual({
      title: 't', notes: null, dueAt: null, completed: false, completedAt: null, priority: null, parentTaskUid: null, icalExtras: null,
    });
    expect(createFields('calendars', { name: 'c' }).isDefault).toBe(false);
    // A field sent as undefined takes its default; a name the table does not have is not a field.
    expect(createFields('calendars', { name: 'c', isDefault: undefined, bogus: 1 } as never)).toEqual({ name: 'c', color: null, timezone: null, isDefault: false });
    expect(Object.keys(createFields('events', { title: 't', calendarUid: 'c' }))).toEqual(FIELD_TABLES.events.map((s) => s.name));
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
    const problem = (type: 'events' | 'reminders', fields: Record<string, unknown>) => {
      const out = settleFields(type, fields as never);
      return out.ok ? null : out.error;
    };
    const ev = { startTime: '2024-01-02T00:00:00.000Z', endTime: '2024-01-01T00:00:00.000Z' };
    expect(problem('events', { ...createFields('events', {}), ...ev, calendarUid: 'c', title: 't' })?.code).toBe('INVALID_FIELD');
    expect(problem('reminders', { eventUid: 'e', taskUid: 't' })?.message).toContain('not both');
    expect(problem('reminders', { eventUid: 'e', taskUid: null })).toBeNull();
    expect(problem('reminders', { eventUid: 'e', minutesBefore: 10, remindAt: '2024-01-01T00:00:00.000Z' })?.message)
      .toContain('minutesBefore or remindAt');
    expect(problem('reminders', { eventUid: 'e', minutesBefore: 10, remindAt: null })).toBeNull();
  });
  describe('event times', () => {
    const event = (fields: Record<string, unknown>) => settleFields('events', { ...createFields('events', {}), calendarUid: 'c', title: 't', ...fields } as never);
    it('keeps an all-day event as floating dates and reads a midnight-UTC instant as its date', () => {
      const dates = event({ allDay: true, startTime: '2026-03-10', endTime: '2026-03-11' });
      expect(dates.ok && [dates.value.startTime, dates.value.endTime]).toEqual(['2026-03-10', '2026-03-11']);
      const legacy = event({ allDay: true, startTime: '2026-03-10T00:00:00.000Z', endTime: '2026-03-11T00:00:00.000Z' });
      expect(legacy.ok && [legacy.value.startTime, legacy.value.endTime]).toEqual(['2026-03-10', '2026-03-11']);
    });
    it('refuses an all-day event at any other instant, and an end before the start', () => {
      const evening = event({ allDay: true, startTime: '2026-03-09T23:00:00.000Z', endTime: '2026-03-10T23:00:00.000Z' });
      expect(!evening.ok && evening.error.code).toBe('INVALID_FIELD');
      const backwards = event({ allDay: true, startTime: '2026-03-11', endTime: '2026-03-10' });
      expect(!backwards.ok && backwards.error.message).toContain('endTime');
    });
    it('orders a timed event\'s start and end by the instants they name, whatever form each was sent in', () => {
      // 10:00+02:00 is 08:00Z: an end at 09:00Z is after it although its text sorts before the sent start.
      const offset = event({ startTime: '2026-03-10T10:00:00+02:00', endTime: '2026-03-10T09:00:00.000Z' });
      expect(offset.ok && [offset.value.startTime, offset.value.endTime]).toEqual(['2026-03-10T08:00:00.000Z', '2026-03-10T09:00:00.000Z']);
      expect(event({ startTime: '2026-03-10T08:00:00.001Z', endTime: '2026-03-10T10:00:00+02:00' }).ok).toBe(false);
      expect(event({ startTime: '2026-03-10', endTime: '20260310T000000Z' }).ok).toBe(true);
      expect(event({ startTime: '0999-12-31T23:59:59.999Z', endTime: '1000-01-01' }).ok).toBe(true);
    });
    it('reads a bare date of a timed event as midnight UTC', () => {
      const timed = event({ startTime: '2026-03-10', endTime: '2026-03-10T10:00:00Z' });
      expect(timed.ok && [timed.value.startTime, timed.value.endTime]).toEqual(['2026-03-10T00:00:00.000Z', '2026-03-10T10:00:00.000Z']);
    });
    it('wants dates in an all-day series\' exdate', () => {
      const base = { allDay: true, startTime: '2026-03-10', endTime: '2026-03-11', rrule: 'FREQ=DAILY' };
      expect(event({ ...base, exdate: '2026-03-12,2026-03-14T00:00:00.000Z' }).ok).toBe(true);
      const timedEntry = event({ ...base, exdate: '2026-03-12T09:00:00.000Z' });
      expect(!timedEntry.ok && timedEntry.error.code).toBe('INVALID_EXDATE');
    });
    it('wants an override to name its series and occurrence together, without rrule or exdate', () => {
      const times = { startTime: '2026-03-10T09:00:00.000Z', endTime: '2026-03-10T10:00:00.000Z' };
      expect(event({ ...times, recurringEventUid: 's', originalStartTime: '2026-03-10T08:00:00.000Z' }).ok).toBe(true);
      const half = event({ ...times, recurringEventUid: 's' });
      expect(!half.ok && half.error.message).toContain('originalStartTime');
      const ruled = event({ ...times, recurringEventUid: 's', originalStartTime: '2026-03-10T08:00:00.000Z', rrule: 'FREQ=DAILY' });
      expect(!ruled.ok && ruled.error.message).toContain('no rrule');
    });
    it('never lets a patch change an override\'s series or occurrence', () => {
      const current = { recurringEventUid: 's', originalStartTime: '2026-03-10T08:00:00.000Z' };
      expect(checkImmutable('events', current, { recurringEventUid: 's', title: 'x' })).toBeNull();
      expect(checkImmutable('events', current, { originalStartTime: '2026-03-11T08:00:00.000Z' })?.code).toBe('INVALID_FIELD');
      expect(checkImmutable('events', current, { recurringEventUid: null })?.code).toBe('INVALID_FIELD');
    });
  });
  it('snapshots rows with the version as a string and every field present', () => {
    const wire = toWireRecord({
      type: 'calendars', id: 7, userId: 1, uid: 'c1', version: 12345678901234567n, createdAt: 'a', updatedAt: 'b', deleted: null,
      fields: { name: 'n' },
    });
    expect(wire).toEqual({ name: 'n', color: null, timezone: null, isDefault: null, id: 7, uid: 'c1', version: '12345678901234567', deleted: null, createdAt: 'a', updatedAt: 'b' });
  });
});
