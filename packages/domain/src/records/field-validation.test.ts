import { describe, expect, it } from 'vitest';
import { validatePatch, isValidExdate, isValidTimezone } from './field-validation.js';
import { isValidRrule } from './rrule.js';
import { parseIsoInstant } from './datetime.js';

const err = (r: ReturnType<typeof validatePatch>) => (r.ok ? null : r.error);

describe('validatePatch', () => {
  it('normalises datetimes and keeps valid values', () => {
    const r = validatePatch('events', { title: 'x', startTime: '2024-05-01T12:00:00+02:00', allDay: true, rrule: null });
    expect(r).toEqual({ ok: true, value: { title: 'x', startTime: '2024-05-01T10:00:00.000Z', allDay: true, rrule: null } });
  });
  it('drops read-only stamps and legacy fields', () => {
    const r = validatePatch('events', { id: 3, version: '9', createdAt: 'x', updatedAt: 'y', deleted: null, syncStatus: 'SYNCED', lastSyncTime: 'z', title: 't' });
    expect(r).toEqual({ ok: true, value: { title: 't' } });
  });
  it('refuses unknown keys, nulls of non-nullable fields and wrong kinds', () => {
    expect(err(validatePatch('calendars', { colour: '#ffffff' }))?.code).toBe('INVALID_FIELD');
    expect(err(validatePatch('calendars', { colour: '#ffffff' }))?.message).toContain('colour');
    expect(err(validatePatch('calendars', { name: null }))?.code).toBe('INVALID_FIELD');
    expect(err(validatePatch('calendars', { isDefault: 'yes' }))?.code).toBe('INVALID_FIELD');
    expect(err(validatePatch('calendars', { name: '' }))?.code).toBe('INVALID_FIELD');
    expect(err(validatePatch('calendars', { name: 'x'.repeat(201) }))?.code).toBe('INVALID_FIELD');
    expect(err(validatePatch('calendars', { color: '#fffff' }))?.code).toBe('INVALID_FIELD');
    expect(err(validatePatch('calendars', { timezone: 'Mars/Olympus' }))?.code).toBe('INVALID_FIELD');
    expect(err(validatePatch('tasks', { priority: 10 }))?.code).toBe('INVALID_FIELD');
    expect(err(validatePatch('tasks', { priority: 1.5 }))?.code).toBe('INVALID_FIELD');
    expect(err(validatePatch('tasks', { dueAt: 'tomorrow' }))?.code).toBe('INVALID_FIELD');
    expect(err(validatePatch('tasks', { parentTaskUid: 'bad uid!' }))?.code).toBe('INVALID_FIELD');
    expect(err(validatePatch('reminders', { minutesBefore: 40321 }))?.code).toBe('INVALID_FIELD');
    expect(validatePatch('reminders', { minutesBefore: 40320, taskUid: null }).ok).toBe(true);
  });
  it('gives INVALID_RRULE and INVALID_EXDATE for bad recurrence values', () => {
    expect(err(validatePatch('events', { rrule: 'RRULE:FREQ=DAILY' }))).toEqual({ code: 'INVALID_RRULE', message: 'invalid rrule', retryable: false });
    expect(err(validatePatch('events', { rrule: 42 }))?.code).toBe('INVALID_RRULE');
    expect(err(validatePatch('events', { exdate: '2024-01-01T00:00:00Z,nope' }))).toEqual({ code: 'INVALID_EXDATE', message: 'invalid exdate', retryable: false });
  });
  it('stores rrule and exdate as sent', () => {
    const r = validatePatch('events', { rrule: 'FREQ=WEEKLY;BYDAY=MO,WE', exdate: '20240101T100000Z, 2024-01-08T10:00:00Z' });
    expect(r).toEqual({ ok: true, value: { rrule: 'FREQ=WEEKLY;BYDAY=MO,WE', exdate: '20240101T100000Z, 2024-01-08T10:00:00Z' } });
  });
});

describe('isValidRrule', () => {
  it.each([
    'FREQ=DAILY',
    'FREQ=WEEKLY;COUNT=10;WKST=SU;BYDAY=TU,TH',
    'FREQ=MONTHLY;BYDAY=-1FR;INTERVAL=2',
    'FREQ=YEARLY;UNTIL=20301231T000000Z;BYMONTH=1,7;BYMONTHDAY=-1',
    'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1',
  ])('accepts %s', (r) => expect(isValidRrule(r)).toBe(true));
  it.each([
    '', 'FREQ=FOO', 'COUNT=3', 'FREQ=DAILY;BYHOUR=25', 'FREQ=DAILY;INTERVAL=0', 'FREQ=DAILY;COUNT=2;UNTIL=20300101',
    'FREQ=DAILY;FREQ=WEEKLY', 'RRULE:FREQ=DAILY', 'FREQ=DAILY;FOO=1', 'FREQ=DAILY;', 'FREQ=WEEKLY;BYDAY=XX',
    'FREQ=MONTHLY;BYMONTHDAY=0', 'FREQ=DAILY;UNTIL=tomorrow', 'freq=daily',
  ])('refuses %s', (r) => expect(isValidRrule(r)).toBe(false));
});

describe('dates, exdates, zones', () => {
  it('parses ISO 8601 forms as instants and refuses impossible dates', () => {
    expect(parseIsoInstant('2024-02-29')?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(parseIsoInstant('2024-01-01T10:00:00')?.toISOString()).toBe('2024-01-01T10:00:00.000Z');
    expect(parseIsoInstant('20240101T100000Z')?.toISOString()).toBe('2024-01-01T10:00:00.000Z');
    expect(parseIsoInstant('2024-01-01T10:00:00.123456-0130')?.toISOString()).toBe('2024-01-01T11:30:00.123Z');
    expect(parseIsoInstant('2023-02-29T00:00:00Z')).toBeNull();
    expect(parseIsoInstant('2024-13-01T00:00:00Z')).toBeNull();
    expect(parseIsoInstant('2024-01-01T24:00:00Z')).toBeNull();
    expect(parseIsoInstant('1714557600')).toBeNull();
  });
  it('accepts instants in years 0001 to 9999 (UTC) only: what PostgreSQL and toISOString both hold', () => {
    expect(parseIsoInstant('0001-01-01T00:00:00Z')?.toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(parseIsoInstant('9999-12-31T23:59:59.999Z')?.toISOString()).toBe('9999-12-31T23:59:59.999Z');
    expect(parseIsoInstant('0000-01-01T00:00:00Z')).toBeNull();
    expect(parseIsoInstant('00000101')).toBeNull();
    expect(parseIsoInstant('0001-01-01T00:30:00+01:00')).toBeNull();
    expect(parseIsoInstant('9999-12-31T23:30:00-01:00')).toBeNull();
    expect(err(validatePatch('tasks', { dueAt: '0000-06-01T00:00:00Z' }))?.code).toBe('INVALID_FIELD');
    expect(isValidExdate('2024-01-01T00:00:00Z,0000-01-01T00:00:00Z')).toBe(false);
  });
  it('refuses text PostgreSQL cannot store (NUL, lone surrogates) in every kind of string field', () => {
    for (const [type, key, value] of [
      ['events', 'description', 'a\u0000b'],
      ['events', 'title', 'a\ud800'],
      ['events', 'calendarUid', 'cal\u0000'],
      ['calendars', 'timezone', 'UTC\u0000'],
      ['calendars', 'color', '#ffffff\u0000'],
      ['events', 'rrule', 'FREQ=DAILY\u0000'],
      ['events', 'startTime', '2024-01-01T00:00:00Z\u0000'],
    ] as const) {
      expect(err(validatePatch(type, { [key]: value }))?.code, `${type}.${key}`).toBe('INVALID_FIELD');
    }
    expect(validatePatch('events', { description: 'emoji \ud83d\ude00 is fine' }).ok).toBe(true);
  });
  it('checks exdate lists item by item', () => {
    expect(isValidExdate('2024-01-01T00:00:00Z')).toBe(true);
    expect(isValidExdate('')).toBe(false);
    expect(isValidExdate('2024-01-01T00:00:00Z,,2024-01-02T00:00:00Z')).toBe(false);
  });
  it('knows IANA zones', () => {
    expect(isValidTimezone('UTC')).toBe(true);
    expect(isValidTimezone('Europe/Berlin')).toBe(true);
    expect(isValidTimezone('Etc/UTC')).toBe(true);
    expect(isValidTimezone('Europe/Nowhere')).toBe(false);
    expect(isValidTimezone('../etc')).toBe(false);
  });
});
