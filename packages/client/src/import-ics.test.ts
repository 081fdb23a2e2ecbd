import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startInMemoryService, type InMemoryService } from '../test-support/in-memory-service.js';
import { clientOf, signIn } from '../test-support/clients.js';

let service: InMemoryService;
beforeEach(async () => {
  service = await startInMemoryService();
});
afterEach(async () => {
  await service.close();
});

/** A file as Google Calendar exports it: a weekly series in New York with one moved occurrence and an alarm, a task, and a journal entry calsync does not hold. */
const FILE = [
  'BEGIN:VCALENDAR',
  'PRODID:-//Google Inc//Google Calendar 70.9054//EN',
  'VERSION:2.0',
  'CALSCALE:GREGORIAN',
  'X-WR-CALNAME:Team',
  'BEGIN:VEVENT',
  'DTSTART;TZID=America/New_York:20261102T093000',
  'DTEND;TZID=America/New_York:20261102T100000',
  'RRULE:FREQ=WEEKLY;COUNT=6;BYDAY=MO',
  'DTSTAMP:20261101T120000Z',
  'UID:5k1b2c3d4e@google.com',
  'SUMMARY:Planning',
  'BEGIN:VALARM',
  'ACTION:DISPLAY',
  'DESCRIPTION:This is an event reminder',
  'TRIGGER:-P0DT0H15M0S',
  'END:VALARM',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'DTSTART;TZID=America/New_York:20261109T140000',
  'DTEND;TZID=America/New_York:20261109T143000',
  'DTSTAMP:20261101T120000Z',
  'UID:5k1b2c3d4e@google.com',
  'RECURRENCE-ID;TZID=America/New_York:20261109T093000',
  'SUMMARY:Planning (afternoon)',
  'END:VEVENT',
  'BEGIN:VTODO',
  'UID:todo-1@example.org',
  'DTSTAMP:20261101T120000Z',
  'SUMMARY:Book the room',
  'DUE:20261106T170000Z',
  'END:VTODO',
  'BEGIN:VJOURNAL',
  'UID:journal-1@example.org',
  'DTSTAMP:20261101T120000Z',
  'SUMMARY:Notes',
  'END:VJOURNAL',
  'END:VCALENDAR',
  '',
].join('\r\n');

describe('client.importIcs', () => {
  it('imports events with their overrides and alarms, and tasks; lists what it skipped; a second import changes nothing; an edited file updates', async () => {
    const a = await clientOf(service);
    await signIn(service, a, '+15550003001');
    const cal = a.calendars.list()[0]!.uid;
    const first = await a.importIcs(FILE, { calendarUid: cal });
    expect(first).toMatchObject({ created: 2, updated: 0, unchanged: 0 });
    expect(first.skipped).toEqual([{ uid: 'journal-1@example.org', reason: 'a VJOURNAL (calsync holds events and tasks)' }]);
    const november = a.occurrences({ from: '2026-11-01T00:00:00Z', to: '2026-11-17T00:00:00Z' });
    expect(november.occurrences.map((o) => [o.title, o.start])).toEqual([
      ['Planning', '2026-11-02T14:30:00.000Z'],
      ['Planning (afternoon)', '2026-11-09T19:00:00.000Z'],
      ['Planning', '2026-11-16T14:30:00.000Z'],
    ]);
    expect(a.reminders.list().map((r) => r.minutesBefore)).toEqual([15]);
    expect(a.tasks.list().map((t) => [t.title, t.dueAt])).toEqual([['Book the room', '2026-11-06T17:00:00.000Z']]);
    await a.sync();

    // The same file again, on another device of the account: nothing new, nothing changed.
    const b = await clientOf(service);
    await signIn(service, b, '+15550003001');
    expect(await b.importIcs(FILE, { calendarUid: cal })).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
    expect(b.events.list()).toHaveLength(2);

    // The organiser renamed the series: one object updated, the override kept.
    const renamed = await b.importIcs(FILE.replace('SUMMARY:Planning\r\n', 'SUMMARY:Sprint planning\r\n'), { calendarUid: cal });
    expect(renamed).toMatchObject({ created: 0, updated: 1, unchanged: 1 });
    await b.sync();
    await a.sync();
    expect(a.events.list().map((e) => e.title).sort()).toEqual(['Planning (afternoon)', 'Sprint planning']);
    expect(await a.conflicts.list()).toEqual([]);
  });

  it('refuses a text that is not iCalendar and a calendar it does not know, writing nothing', async () => {
    const a = await clientOf(service);
    await signIn(service, a, '+15550003002');
    const cal = a.calendars.list()[0]!.uid;
    await expect(a.importIcs('hello', { calendarUid: cal })).rejects.toThrow(/not iCalendar/);
    await expect(a.importIcs(FILE, { calendarUid: 'nope' })).rejects.toThrow(/no calendar nope/);
    expect(a.events.list()).toEqual([]);
  });
});
