import { OCCURRENCE_SOURCE_FIELDS } from '@calsync/domain';
import { describe, expect, it } from 'vitest';
import { insertRows, sampleFields, type StoreHarness } from './fixtures.js';

/** `SyncStore.readEventWindow`: what a calendar view of a window reads, and when it reads nothing. */
export function windowCases(harness: () => StoreHarness): void {
  describe('event window', () => {
    it('reads every live series and override and the other live events that touch the window a day wide, of this user only, with the expander\'s fields and their calendars\' zones', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      const other = await createUser();
      const event = (uid: string, fields: Record<string, string | boolean | null>, deleted: string | null = null) => ({
        type: 'events' as const,
        uid,
        deleted,
        fields: { ...sampleFields('events', { calendarUid: 'w-cal' }), rrule: null, exdate: null, ...fields },
      });
      await insertRows(store, user, [
        { type: 'calendars', uid: 'w-cal', fields: sampleFields('calendars') },
        { type: 'calendars', uid: 'w-plain', fields: { ...sampleFields('calendars'), timezone: null } },
        { type: 'calendars', uid: 'w-empty', fields: { ...sampleFields('calendars'), timezone: 'Asia/Tokyo' } },
        { type: 'calendars', uid: 'w-gone', fields: sampleFields('calendars'), deleted: '2026-01-01T00:00:00.000Z' },
        event('inside', { startTime: '2026-03-10T09:00:00.000Z', endTime: '2026-03-10T10:00:00.000Z' }),
        event('day-before', { allDay: true, startTime: '2026-02-28', endTime: '2026-03-01' }),
        event('long-ago', { startTime: '2020-03-10T09:00:00.000Z', endTime: '2020-03-10T10:00:00.000Z' }),
        event('far-ahead', { startTime: '2027-03-10T09:00:00.000Z', endTime: '2027-03-10T10:00:00.000Z' }),
        event('series', { startTime: '2020-01-06T09:00:00.000Z', endTime: '2020-01-06T10:00:00.000Z', rrule: 'FREQ=WEEKLY' }),
        event('override', { startTime: '2027-01-01T09:00:00.000Z', endTime: '2027-01-01T10:00:00.000Z', recurringEventUid: 'series', originalStartTime: '2026-12-28T09:00:00.000Z' }),
        event('plain', { calendarUid: 'w-plain', startTime: '2026-03-11T09:00:00.000Z', endTime: '2026-03-11T10:00:00.000Z' }),
        event('deleted', { startTime: '2026-03-10T09:00:00.000Z', endTime: '2026-03-10T10:00:00.000Z' }, '2026-03-01T00:00:00.000Z'),
      ]);
      await insertRows(store, other, [
        { type: 'calendars', uid: 'w-cal', fields: sampleFields('calendars') },
        event('inside-theirs', { startTime: '2026-03-10T09:00:00.000Z', endTime: '2026-03-10T10:00:00.000Z' }),
      ]);
      const answer = await store.readEventWindow(user, '2026-03-01T12:00:00.000Z', '2026-04-01T00:00:00.000Z');
      expect(answer.version).toBe(await store.newestVersion(user));
      const read = answer.window!;
      expect(read.events.map((e) => e.uid)).toEqual(['inside', 'day-before', 'series', 'override', 'plain']);
      // Only the calendars of the events read, live ones, with their zones.
      expect(Object.fromEntries(read.calendarZones)).toEqual({ 'w-cal': 'Europe/Berlin', 'w-plain': null });
      for (const e of read.events) expect(Object.keys(e.fields).sort()).toEqual([...OCCURRENCE_SOURCE_FIELDS].sort());
      expect(read.events[1]!.fields).toMatchObject({ startTime: '2026-02-28', endTime: '2026-03-01', allDay: true });
      expect(read.events[2]!.fields).toEqual({
        calendarUid: 'w-cal',
        title: 'Stand-up',
        startTime: '2020-01-06T09:00:00.000Z',
        endTime: '2020-01-06T10:00:00.000Z',
        allDay: false,
        timezone: null,
        rrule: 'FREQ=WEEKLY',
        exdate: null,
        recurringEventUid: null,
        originalStartTime: null,
      });
      expect(read.events[3]!.fields).toMatchObject({ recurringEventUid: 'series', originalStartTime: '2026-12-28T09:00:00.000Z' });
    });

    it('answers no window while the newest version is the one the caller holds, and the window again after any write of the user', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      const window = ['2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z'] as const;
      const empty = await store.readEventWindow(user, ...window);
      expect(empty).toEqual({ version: 0n, window: { calendarZones: new Map(), events: [] } });
      await insertRows(store, user, [{ type: 'calendars', uid: 'v-cal', fields: sampleFields('calendars') }]);
      const first = await store.readEventWindow(user, ...window, 0n);
      expect(first.version).toBeGreaterThan(0n);
      expect(first.window).toEqual({ calendarZones: new Map(), events: [] });
      expect(await store.readEventWindow(user, ...window, first.version)).toEqual({ version: first.version, window: null });
      // A write outside the window still moves the version: the caller reads again.
      await insertRows(store, user, [
        { type: 'events', uid: 'v-ev', fields: { ...sampleFields('events', { calendarUid: 'v-cal' }), rrule: null, exdate: null, startTime: '2026-03-10T09:00:00.000Z', endTime: '2026-03-10T10:00:00.000Z' } },
      ]);
      const second = await store.readEventWindow(user, ...window, first.version);
      expect(second.version).toBeGreaterThan(first.version);
      expect(second.window?.events.map((e) => e.uid)).toEqual(['v-ev']);
      expect(Object.fromEntries(second.window!.calendarZones)).toEqual({ 'v-cal': 'Europe/Berlin' });
    });
  });
}
