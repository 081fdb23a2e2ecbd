import { describe, expect, it } from 'vitest';
import { insertRows, insertsOf, newRow, nextVersions, noUids, rowsOf, sampleFields, type StoreHarness } from './fixtures.js';

/** `readObjects`: the rows of iCalendar objects, tombstones included. */
export function objectCases(harness: () => StoreHarness): void {
  describe('iCalendar objects', () => {
    it("reads a calendar's roots with their overrides and reminders, tombstones included, or the tasks with theirs, of this user only", async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      const other = await createUser();
      const gone = '2026-01-01T00:00:00.000Z';
      const event = (uid: string, calendarUid: string, extra: Record<string, string | null> = {}, deleted: string | null = null) => ({
        type: 'events' as const,
        uid,
        deleted,
        fields: { ...sampleFields('events', { calendarUid }), ...extra },
      });
      await insertRows(store, user, [
        { type: 'calendars', uid: 'o-home', fields: sampleFields('calendars') },
        { type: 'calendars', uid: 'o-work', fields: sampleFields('calendars') },
        event('series', 'o-home'),
        event('single', 'o-home', { rrule: null, exdate: null }, gone),
        event('elsewhere', 'o-work', { rrule: null, exdate: null }),
        event('series-x', 'o-home', { rrule: null, exdate: null, recurringEventUid: 'series', originalStartTime: '2024-03-11T08:30:00.123Z' }),
        event('series-y', 'o-home', { rrule: null, exdate: null, recurringEventUid: 'series', originalStartTime: '2024-03-13T08:30:00.123Z' }, gone),
        { type: 'reminders', uid: 'r-series', fields: sampleFields('reminders', { eventUid: 'series' }) },
        { type: 'reminders', uid: 'r-x', fields: sampleFields('reminders', { eventUid: 'series-x' }), deleted: gone },
        { type: 'reminders', uid: 'r-work', fields: sampleFields('reminders', { eventUid: 'elsewhere' }) },
        { type: 'tasks', uid: 't-1', fields: sampleFields('tasks') },
        { type: 'reminders', uid: 'r-t', fields: sampleFields('reminders', { taskUid: 't-1' }) },
        { type: 'calendars', uid: 'o-gone', fields: sampleFields('calendars'), deleted: gone },
        event('buried', 'o-gone', { rrule: null, exdate: null }, gone),
      ]);
      await insertRows(store, other, [
        { type: 'calendars', uid: 'o-home', fields: sampleFields('calendars') },
        event('series', 'o-home'),
      ]);
      const home = await store.inUserTransaction(user, (uow) => uow.readObjects({ calendarUid: 'o-home' }));
      expect(home.calendars.map((c) => c.uid)).toEqual(['o-home', 'o-work']);
      expect(home.roots.map((r) => [r.uid, r.deleted !== null])).toEqual([['series', false], ['single', true]]);
      expect(home.overrides.map((r) => [r.uid, r.deleted !== null])).toEqual([['series-x', false], ['series-y', true]]);
      expect(home.reminders.map((r) => [r.uid, r.deleted !== null])).toEqual([['r-series', false], ['r-x', true]]);
      const one = await store.inUserTransaction(user, (uow) => uow.readObjects({ calendarUid: 'o-home' }, ['single']));
      expect([one.roots.map((r) => r.uid), one.overrides, one.reminders]).toEqual([['single'], [], []]);
      const tasks = await store.inUserTransaction(user, (uow) => uow.readObjects({ tasks: true }));
      expect([tasks.roots.map((r) => r.uid), tasks.reminders.map((r) => r.uid)]).toEqual([['t-1'], ['r-t']]);
      // The store's own read, outside a unit of work, answers the same.
      expect(await store.readObjects(user, { calendarUid: 'o-home' })).toEqual(home);
      expect(await store.readObjects(user, { calendarUid: 'o-home' }, ['single'])).toEqual(one);
      expect(await store.readObjects(user, { tasks: true })).toEqual(tasks);
      expect((await store.readObjects(user, { calendarUid: 'o-home' }, ['nothing'])).roots).toEqual([]);
      // Every calendar's events, a deleted calendar's included (a record uid is the account's), with the live calendars.
      const all = await store.readObjects(user, { allCalendars: true });
      expect(all.calendars).toEqual(home.calendars);
      expect([all.roots, all.overrides, all.reminders].map((rows) => rows.map((r) => r.uid))).toEqual([
        ['series', 'single', 'elsewhere', 'buried'],
        ['series-x', 'series-y'],
        ['r-series', 'r-x', 'r-work'],
      ]);
      expect(await store.inUserTransaction(user, (uow) => uow.readObjects({ allCalendars: true }))).toEqual(all);
      expect((await store.readObjects(user, { allCalendars: true }, ['buried', 'elsewhere', 'series-x'])).roots.map((r) => r.uid)).toEqual(['elsewhere', 'buried']);

      // Changed since a version: whole objects of which any row is newer, with the user's newest version.
      const before = await store.newestVersion(user);
      const unchanged = await store.readObjectsChangedSince(user, { calendarUid: 'o-home' }, before);
      expect([unchanged.roots, unchanged.overrides, unchanged.reminders, unchanged.newestVersion]).toEqual([[], [], [], before]);
      expect(unchanged.calendars.map((c) => c.uid)).toEqual(['o-home', 'o-work']);
      const later = await insertRows(store, user, [
        { type: 'reminders', uid: 'r-y', fields: sampleFields('reminders', { eventUid: 'series-y' }) },
        event('fresh', 'o-home', { rrule: null, exdate: null }),
        event('far', 'o-work', { rrule: null, exdate: null }),
        { type: 'reminders', uid: 'r-t2', fields: sampleFields('reminders', { taskUid: 't-1' }) },
      ]);
      await insertRows(store, other, [event('other-new', 'o-home', { rrule: null, exdate: null })]);
      const newest = later.map((r) => r.version).reduce((a, b) => (a > b ? a : b));
      const changed = await store.readObjectsChangedSince(user, { calendarUid: 'o-home' }, before);
      expect(changed.roots.map((r) => r.uid)).toEqual(['series', 'fresh']);
      expect(changed.overrides.map((r) => r.uid)).toEqual(['series-x', 'series-y']);
      expect(changed.reminders.map((r) => r.uid)).toEqual(['r-series', 'r-x', 'r-y']);
      expect(changed.newestVersion).toBe(newest);
      const lastOnly = await store.readObjectsChangedSince(user, { calendarUid: 'o-home' }, later[0]!.version);
      expect(lastOnly.roots.map((r) => r.uid)).toEqual(['fresh']);
      const changedTasks = await store.readObjectsChangedSince(user, { tasks: true }, before);
      expect([changedTasks.roots.map((r) => r.uid), changedTasks.reminders.map((r) => r.uid)]).toEqual([['t-1'], ['r-t', 'r-t2']]);
      expect((await store.readObjectsChangedSince(user, { tasks: true }, newest)).roots).toEqual([]);
    });

    it('reads every collection\'s version at once: the highest version readObjects would answer for its scope, of live calendars only', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      const other = await createUser();
      const event = (uid: string, calendarUid: string, extra: Record<string, string | null> = {}) => ({
        type: 'events' as const,
        uid,
        fields: { ...sampleFields('events', { calendarUid }), rrule: null, exdate: null, ...extra },
      });
      expect(await store.readCollectionVersions(user)).toEqual({ calendars: new Map(), tasks: 0n });
      await insertRows(store, user, [
        { type: 'calendars', uid: 'v-home', fields: sampleFields('calendars') },
        { type: 'calendars', uid: 'v-work', fields: sampleFields('calendars') },
        { type: 'calendars', uid: 'v-empty', fields: sampleFields('calendars') },
        { type: 'calendars', uid: 'v-gone', fields: sampleFields('calendars') },
        event('h-1', 'v-home'),
        event('w-1', 'v-work'),
        event('g-1', 'v-gone'),
        { type: 'tasks', uid: 'vt-1', fields: sampleFields('tasks') },
      ]);
      // Later rows: an override of h-1 (its calendar_uid names another calendar: the root's counts), a reminder of that override, a task's reminder.
      await insertRows(store, user, [event('h-1-x', 'v-work', { recurringEventUid: 'h-1', originalStartTime: '2024-03-11T08:30:00.123Z' })]);
      await insertRows(store, user, [{ type: 'reminders', uid: 'vr-x', fields: sampleFields('reminders', { eventUid: 'h-1-x' }) }]);
      await insertRows(store, other, [{ type: 'calendars', uid: 'v-home', fields: sampleFields('calendars') }, event('o-1', 'v-home')]);
      await insertRows(store, user, [{ type: 'reminders', uid: 'vr-t', fields: sampleFields('reminders', { taskUid: 'vt-1' }) }]);
      await store.inUserTransaction(user, async (uow) => {
        const [gone] = await uow.prefetch({ ...noUids(), calendars: ['v-gone'] }, []).then((p) => p.rows.calendars);
        const [version] = await nextVersions(uow, 1);
        await uow.applyWrites([{ kind: 'update', row: { ...gone!, version: version!, deleted: '2026-01-01T00:00:00.000Z' } }]);
      });
      const highest = (rows: { roots: { version: bigint }[]; overrides: { version: bigint }[]; reminders: { version: bigint }[] }) =>
        [...rows.roots, ...rows.overrides, ...rows.reminders].reduce((v, r) => (r.version > v ? r.version : v), 0n);
      const versions = await store.readCollectionVersions(user);
      expect(versions.calendars).toEqual(
        new Map([
          ['v-home', highest(await store.readObjects(user, { calendarUid: 'v-home' }))],
          ['v-work', highest(await store.readObjects(user, { calendarUid: 'v-work' }))],
        ]),
      );
      expect(versions.tasks).toBe(highest(await store.readObjects(user, { tasks: true })));
      expect(versions.calendars.get('v-home')).toBeGreaterThan(versions.calendars.get('v-work')!);
      expect(versions.tasks).toBeGreaterThan(versions.calendars.get('v-home')!);
    });

    it('lists each object of a scope as readObjects reads it: uid, tombstone, highest version over its rows, and the extras only when they hold the asked text', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      const other = await createUser();
      const gone = '2026-01-01T00:00:00.000Z';
      const marked = 'BEGIN:VEVENT\r\nX-MARK:a name.ics\r\nEND:VEVENT';
      const event = (uid: string, calendarUid: string, extra: Record<string, string | null> = {}, deleted: string | null = null) => ({
        type: 'events' as const,
        uid,
        deleted,
        fields: { ...sampleFields('events', { calendarUid }), rrule: null, exdate: null, ...extra },
      });
      await insertRows(store, user, [
        { type: 'calendars', uid: 'l-home', fields: sampleFields('calendars') },
        { type: 'calendars', uid: 'l-work', fields: sampleFields('calendars') },
        { type: 'calendars', uid: 'l-empty', fields: sampleFields('calendars') },
        event('l-series', 'l-home', { rrule: 'FREQ=DAILY;COUNT=3', icalExtras: marked }),
        event('l-plain', 'l-home', { icalExtras: null }),
        event('l-gone', 'l-home', { icalExtras: marked }, gone),
        event('l-far', 'l-work'),
        { type: 'tasks', uid: 'l-task', fields: { ...sampleFields('tasks'), icalExtras: 'BEGIN:VTODO\r\nX-MARK:t.ics\r\nEND:VTODO' } },
        { type: 'tasks', uid: 'l-task-2', fields: sampleFields('tasks') },
      ]);
      // Later rows raise their roots' versions: an override (its calendar_uid names another calendar), a reminder of it, a tombstoned reminder, a task's reminder.
      await insertRows(store, user, [event('l-series-x', 'l-work', { recurringEventUid: 'l-series', originalStartTime: '2024-03-11T08:30:00.123Z' })]);
      await insertRows(store, user, [{ type: 'reminders', uid: 'l-r-x', fields: sampleFields('reminders', { eventUid: 'l-series-x' }) }]);
      await insertRows(store, user, [{ type: 'reminders', uid: 'l-r-plain', fields: sampleFields('reminders', { eventUid: 'l-plain' }), deleted: gone }]);
      await insertRows(store, user, [{ type: 'reminders', uid: 'l-r-t', fields: sampleFields('reminders', { taskUid: 'l-task-2' }) }]);
      await insertRows(store, other, [{ type: 'calendars', uid: 'l-home', fields: sampleFields('calendars') }, event('l-other', 'l-home', { icalExtras: marked })]);

      // What readObjects answers, listed: the rule the listing must agree with on every adapter.
      const expected = async (scope: { calendarUid: string } | { tasks: true }, holding: string) => {
        const rows = await store.readObjects(user, scope);
        const rootOf = new Map<string, string>([...rows.roots.map((r) => [r.uid, r.uid] as const), ...rows.overrides.map((o) => [o.uid, String(o.fields.recurringEventUid)] as const)]);
        const highest = new Map(rows.roots.map((r) => [r.uid, r.version]));
        for (const r of [...rows.overrides, ...rows.reminders]) {
          const root = rootOf.get(String(r.type === 'events' ? r.uid : (r.fields.eventUid ?? r.fields.taskUid)))!;
          if (r.version > highest.get(root)!) highest.set(root, r.version);
        }
        const objects = rows.roots.map((r) => {
          const extras = r.fields.icalExtras;
          return { uid: r.uid, deleted: r.deleted !== null, version: highest.get(r.uid)!, icalExtras: typeof extras === 'string' && extras.includes(holding) ? extras : null };
        });
        const departures = rows.departures.map((x) => ({ ...x, icalExtras: x.icalExtras !== null && x.icalExtras.includes(holding) ? x.icalExtras : null }));
        return { calendars: rows.calendars, objects, departures };
      };
      for (const scope of [{ calendarUid: 'l-home' }, { calendarUid: 'l-work' }, { calendarUid: 'l-empty' }, { calendarUid: 'l-none' }, { tasks: true as const }]) {
        for (const holding of ['X-MARK:', 'X-NOWHERE:']) expect(await store.readObjectListing(user, scope, holding)).toEqual(await expected(scope, holding));
      }
      const home = await store.readObjectListing(user, { calendarUid: 'l-home' }, 'X-MARK:');
      expect(home.objects.map((o) => [o.uid, o.deleted, o.icalExtras])).toEqual([
        ['l-series', false, marked],
        ['l-plain', false, null],
        ['l-gone', true, marked],
      ]);
      // The override's reminder is the series' newest row, the tombstoned reminder the plain event's.
      const versions = new Map(home.objects.map((o) => [o.uid, o.version]));
      expect(versions.get('l-series')).toBeGreaterThan(versions.get('l-gone')!);
      expect(versions.get('l-plain')).toBeGreaterThan(versions.get('l-series')!);
      expect((await store.readObjectListing(user, { calendarUid: 'l-work' }, 'X-MARK:')).objects.map((o) => o.uid)).toEqual(['l-far']);
      expect((await store.readObjectListing(user, { tasks: true }, 'X-MARK:')).objects.map((o) => [o.uid, o.icalExtras !== null])).toEqual([
        ['l-task', true],
        ['l-task-2', false],
      ]);
      expect((await store.readObjectListing(other, { calendarUid: 'l-home' }, 'X-MARK:')).objects.map((o) => o.uid)).toEqual(['l-other']);
    });

    it('keeps a departure of a root event moved to another calendar: the calendar it left lists it gone at the move, until it comes back', async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      const other = await createUser();
      const marked = 'BEGIN:VEVENT\r\nX-MARK:moved name.ics\r\nEND:VEVENT';
      const event = (uid: string, calendarUid: string, extra: Record<string, string | null> = {}) => ({
        type: 'events' as const,
        uid,
        fields: { ...sampleFields('events', { calendarUid }), rrule: null, exdate: null, ...extra },
      });
      await insertRows(store, user, [
        { type: 'calendars', uid: 'd-home', fields: sampleFields('calendars') },
        { type: 'calendars', uid: 'd-work', fields: sampleFields('calendars') },
        event('d-mover', 'd-home', { icalExtras: marked }),
        event('d-stay', 'd-home'),
      ]);
      await insertRows(store, other, [{ type: 'calendars', uid: 'd-home', fields: sampleFields('calendars') }]);
      const move = async (uid: string, to: string, leaves: string, fail = false) =>
        store.inUserTransaction(user, async (uow) => {
          const [row] = await rowsOf(uow, 'events', [uid]);
          const [version] = await nextVersions(uow, 1);
          await uow.applyWrites([{ kind: 'update', row: { ...row!, version: version!, fields: { ...row!.fields, calendarUid: to } }, leaves }]);
          if (fail) throw new Error('rolled back');
          return version!;
        });
      const before = await store.newestVersion(user);
      expect((await store.readObjects(user, { calendarUid: 'd-home' })).departures).toEqual([]);

      // A unit that fails leaves no departure.
      await expect(move('d-mover', 'd-work', 'd-home', true)).rejects.toThrow('rolled back');
      expect((await store.readObjects(user, { calendarUid: 'd-home' })).departures).toEqual([]);

      const moved = await move('d-mover', 'd-work', 'd-home');
      const home = await store.readObjects(user, { calendarUid: 'd-home' });
      expect(home.roots.map((r) => r.uid)).toEqual(['d-stay']);
      expect(home.departures).toEqual([{ uid: 'd-mover', version: moved, icalExtras: marked }]);
      expect(await store.inUserTransaction(user, (uow) => uow.readObjects({ calendarUid: 'd-home' }))).toEqual(home);
      expect((await store.readObjects(user, { calendarUid: 'd-home' }, ['d-mover'])).departures).toEqual(home.departures);
      expect((await store.readObjects(user, { calendarUid: 'd-home' }, ['d-stay'])).departures).toEqual([]);
      // Only a calendar's scope has departures; the calendar it went to has the root, and another user's calendar of that uid nothing.
      const work = await store.readObjects(user, { calendarUid: 'd-work' });
      expect([work.roots.map((r) => r.uid), work.departures]).toEqual([['d-mover'], []]);
      expect((await store.readObjects(user, { allCalendars: true })).departures).toEqual([]);
      expect((await store.readObjects(other, { calendarUid: 'd-home' })).departures).toEqual([]);
      // Changed since: the departure while `since` is below the move; the listing with the extras asked for; the CTag at the move.
      expect((await store.readObjectsChangedSince(user, { calendarUid: 'd-home' }, before)).departures).toEqual(home.departures);
      expect((await store.readObjectsChangedSince(user, { calendarUid: 'd-home' }, moved)).departures).toEqual([]);
      expect((await store.readObjectsChangedSince(user, { calendarUid: 'd-home' }, before)).purgedThrough).toBe(0n);
      expect((await store.readObjectListing(user, { calendarUid: 'd-home' }, 'X-MARK:')).departures).toEqual(home.departures);
      expect((await store.readObjectListing(user, { calendarUid: 'd-home' }, 'X-NOWHERE:')).departures).toEqual([{ uid: 'd-mover', version: moved, icalExtras: null }]);
      expect((await store.readCollectionVersions(user)).calendars.get('d-home')).toBe(moved);

      // Back home: no departure from home, one from work at the later move.
      const back = await move('d-mover', 'd-home', 'd-work');
      expect((await store.readObjects(user, { calendarUid: 'd-home' })).departures).toEqual([]);
      expect((await store.readObjects(user, { calendarUid: 'd-work' })).departures).toEqual([{ uid: 'd-mover', version: back, icalExtras: marked }]);
      const versions = await store.readCollectionVersions(user);
      expect([versions.calendars.get('d-home'), versions.calendars.get('d-work')]).toEqual([back, back]);
      // Away again: the departure from home is the newer move's.
      const again = await move('d-mover', 'd-work', 'd-home');
      expect((await store.readObjects(user, { calendarUid: 'd-home' })).departures).toEqual([{ uid: 'd-mover', version: again, icalExtras: marked }]);
      expect((await store.readObjects(user, { calendarUid: 'd-work' })).departures).toEqual([]);
    });

    it("the store's read outside a unit of work sees what is committed, and nothing of a unit that failed", async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      await insertRows(store, user, [{ type: 'calendars', uid: 'c-home', fields: sampleFields('calendars') }]);
      expect((await store.readObjects(user, { calendarUid: 'c-home' })).roots).toEqual([]);
      await insertRows(store, user, [{ type: 'events', uid: 'e-1', fields: sampleFields('events', { calendarUid: 'c-home' }) }]);
      await expect(
        store.inUserTransaction(user, async (uow) => {
          const [version] = await nextVersions(uow, 1);
          await uow.applyWrites(await insertsOf(uow, [newRow('events', user, 'e-2', version!, sampleFields('events', { calendarUid: 'c-home' }))]));
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      const read = await store.readObjects(user, { calendarUid: 'c-home' });
      expect(read.roots.map((r) => r.uid)).toEqual(['e-1']);
      expect(read.calendars.map((c) => c.uid)).toEqual(['c-home']);
    });
  });
}
