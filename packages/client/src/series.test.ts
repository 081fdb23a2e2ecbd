import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startInMemoryService, type InMemoryService } from '../test-support/in-memory-service.js';
import { clientOf, signIn } from '../test-support/clients.js';
import { FaultyFetch } from '../test-support/faulty-fetch.js';
import type { SyncClient } from './client.js';

let service: InMemoryService;
beforeEach(async () => {
  service = await startInMemoryService();
});
afterEach(async () => {
  await service.close();
});

const july = { from: '2026-07-01T00:00:00Z', to: '2026-08-01T00:00:00Z', tz: 'Europe/Berlin' };

describe('series through the SDK', () => {
  it('expands locally the way the server does: a weekly 09:00 Berlin series made in January is at 09:00 Berlin in July', async () => {
    const a = await clientOf(service);
    await signIn(service, a, '+15550001001');
    const cal = a.calendars.list()[0]!.uid;
    const uid = await a.events.put({ calendarUid: cal, title: 'Weekly', startTime: '2026-01-05T08:00:00.000Z', endTime: '2026-01-05T09:00:00.000Z', timezone: 'Europe/Berlin', rrule: 'FREQ=WEEKLY' });
    // Offline: nothing has been pushed yet, the local store answers.
    const local = a.occurrences(july);
    expect(local.occurrences.map((o) => o.start)).toEqual(['2026-07-06T07:00:00.000Z', '2026-07-13T07:00:00.000Z', '2026-07-20T07:00:00.000Z', '2026-07-27T07:00:00.000Z']);
    await a.sync();
    const server = await service.sync.occurrences(a.auth.user()!.id, july);
    expect(server).toEqual(a.occurrences(july));
    expect(server.occurrences.every((o) => o.seriesUid === uid)).toBe(true);
  });

  it('two devices that each edit a different occurrence offline both keep their edit, with no conflict', async () => {
    const a = await clientOf(service);
    const b = await clientOf(service);
    await signIn(service, a, '+15550001002');
    await signIn(service, b, '+15550001002');
    const cal = a.calendars.list()[0]!.uid;
    const uid = await a.events.put({ calendarUid: cal, title: 'Stand-up', startTime: '2026-07-06T07:00:00.000Z', endTime: '2026-07-06T07:15:00.000Z', timezone: 'Europe/Berlin', rrule: 'FREQ=DAILY;COUNT=10' });
    await a.sync();
    await b.sync();
    await a.events.editOccurrence(uid, '2026-07-07T07:00:00.000Z', { title: 'A moved it', startTime: '2026-07-07T12:00:00.000Z', endTime: '2026-07-07T12:15:00.000Z' });
    await b.events.editOccurrence(uid, '2026-07-09T07:00:00.000Z', { title: 'B renamed it' });
    await a.sync();
    await b.sync();
    await a.sync();
    expect(await a.conflicts.list()).toEqual([]);
    const titles = (c: typeof a) => c.occurrences(july).occurrences.slice(0, 4).map((o) => [o.start.slice(5, 16), o.title]);
    expect(titles(a)).toEqual([['07-06T07:00', 'Stand-up'], ['07-07T12:00', 'A moved it'], ['07-08T07:00', 'Stand-up'], ['07-09T07:00', 'B renamed it']]);
    expect(titles(b)).toEqual(titles(a));
  });

  it('"this and following" ends the series and starts a new one that the other device sees; removing one occurrence adds an exdate', async () => {
    const a = await clientOf(service);
    const b = await clientOf(service);
    await signIn(service, a, '+15550001003');
    await signIn(service, b, '+15550001003');
    const cal = a.calendars.list()[0]!.uid;
    const uid = await a.events.put({ calendarUid: cal, title: 'Gym', startTime: '2026-07-06T16:00:00.000Z', endTime: '2026-07-06T17:00:00.000Z', timezone: 'Europe/Berlin', rrule: 'FREQ=WEEKLY;COUNT=4' });
    const next = await a.events.editOccurrence(uid, '2026-07-20T16:00:00.000Z', { title: 'Gym (new place)', startTime: '2026-07-20T17:00:00.000Z', endTime: '2026-07-20T18:00:00.000Z' }, { scope: 'following' });
    await a.events.removeOccurrence(uid, '2026-07-13T16:00:00.000Z');
    await a.sync();
    await b.sync();
    expect(b.events.get(uid)).toMatchObject({ rrule: 'FREQ=WEEKLY;COUNT=2', exdate: '2026-07-13T16:00:00.000Z' });
    expect(b.events.get(next)).toMatchObject({ rrule: 'FREQ=WEEKLY;COUNT=2', title: 'Gym (new place)' });
    expect(b.occurrences(july).occurrences.map((o) => [o.start.slice(5, 16), o.title])).toEqual([
      ['07-06T16:00', 'Gym'], ['07-20T17:00', 'Gym (new place)'], ['07-27T17:00', 'Gym (new place)'],
    ]);
  });

  it('"this and following" keeps the series\' reminders on the new part, and a moved override keeps its own, on both devices', async () => {
    const a = await clientOf(service);
    const b = await clientOf(service);
    await signIn(service, a, '+15550001005');
    await signIn(service, b, '+15550001005');
    const cal = a.calendars.list()[0]!.uid;
    const uid = await a.events.put({ calendarUid: cal, title: 'Gym', startTime: '2026-07-06T16:00:00.000Z', endTime: '2026-07-06T17:00:00.000Z', timezone: 'Europe/Berlin', rrule: 'FREQ=WEEKLY' });
    await a.reminders.put({ eventUid: uid, minutesBefore: 10 });
    const override = await a.events.editOccurrence(uid, '2026-07-27T16:00:00.000Z', { title: 'Gym with Sam' });
    await a.reminders.put({ eventUid: override, minutesBefore: 60 });
    await a.sync();
    const next = await a.events.editOccurrence(uid, '2026-07-20T16:00:00.000Z', { title: 'Gym (new place)' }, { scope: 'following' });
    await a.sync();
    await b.sync();
    const movedOverride = b.events.list().find((e) => e.recurringEventUid === next)!.uid;
    const minutes = (eventUid: string) => b.reminders.list().filter((r) => r.eventUid === eventUid).map((r) => r.minutesBefore);
    expect({ old: minutes(uid), next: minutes(next), override: minutes(movedOverride), gone: minutes(override) }).toEqual({ old: [10], next: [10], override: [60], gone: [] });
  });

  /** The conflicts either device hears of from now on (the web client's toast listens so). */
  function hearConflicts(...clients: SyncClient[]): unknown[] {
    const heard: unknown[] = [];
    for (const c of clients) c.conflicts.subscribe((fresh) => heard.push(...fresh));
    return heard;
  }

  /** Two devices of one person, signed in and synced, with a weekly 18:00 Berlin "Gym" made on the first; `bOptions` are B's client options. */
  async function twoDevicesWithGym(phone: string, bOptions: Parameters<typeof clientOf>[1] = {}) {
    const a = await clientOf(service);
    const b = await clientOf(service, bOptions);
    await signIn(service, a, phone);
    await signIn(service, b, phone);
    const uid = await a.events.put({ calendarUid: a.calendars.list()[0]!.uid, title: 'Gym', startTime: '2026-07-06T16:00:00.000Z', endTime: '2026-07-06T17:00:00.000Z', timezone: 'Europe/Berlin', rrule: 'FREQ=WEEKLY' });
    await a.sync();
    await b.sync();
    return { a, b, uid };
  }

  it('two devices that each cancel a different occurrence offline: both stay cancelled everywhere, and no one is asked', async () => {
    const { a, b, uid } = await twoDevicesWithGym('+15550001010');
    await a.events.removeOccurrence(uid, '2026-07-13T16:00:00.000Z');
    await b.events.removeOccurrence(uid, '2026-07-20T16:00:00.000Z');
    const heard = hearConflicts(a, b);
    for (const c of [a, b, a]) await c.sync();
    const starts = (c: SyncClient) => c.occurrences(july).occurrences.map((o) => o.start.slice(5, 16));
    expect(starts(a)).toEqual(['07-06T16:00', '07-27T16:00']);
    expect(starts(b)).toEqual(starts(a));
    expect(await service.sync.occurrences(a.auth.user()!.id, july)).toEqual(a.occurrences(july));
    expect({ heard, listed: [await a.conflicts.list(), await b.conflicts.list()] }).toEqual({ heard: [], listed: [[], []] });
  });

  /** A cancels 13 July and syncs; B, which has not seen it, cancels 20 July: B's next push is stale. */
  async function crossingCancellations(a: SyncClient, b: SyncClient, uid: string) {
    await a.events.removeOccurrence(uid, '2026-07-13T16:00:00.000Z');
    await a.sync();
    await b.events.removeOccurrence(uid, '2026-07-20T16:00:00.000Z');
  }

  it('a stale cancellation whose answer was lost is settled from the repeated answer too', async () => {
    const faulty = new FaultyFetch(service.fetch);
    const { a, b, uid } = await twoDevicesWithGym('+15550001015', { fetch: faulty.fetch });
    await crossingCancellations(a, b, uid);
    // B's stale push is applied, and its answer (with the conflict it made) never arrives.
    faulty.next = ({ path }) => (path === '/api/sync/push' ? 'drop-response' : null);
    await expect(b.sync()).rejects.toMatchObject({ kind: 'network' });
    faulty.next = () => null;
    await b.sync(); // the same items again: answered from the server's receipts
    await a.sync();
    for (const c of [a, b]) expect(c.occurrences(july).occurrences.map((o) => o.start.slice(5, 10))).toEqual(['07-06', '07-27']);
    expect([await a.conflicts.list(), await b.conflicts.list()]).toEqual([[], []]);
  });

  it('the merge keeps a cancellation made on the device while its stale push was on its way', async () => {
    let duringPush: (() => Promise<unknown>) | null = null;
    let later: Promise<unknown> = Promise.resolve();
    const { a, b, uid } = await twoDevicesWithGym('+15550001012', {
      fetch: async (input, init) => {
        if (new URL(String(input)).pathname === '/api/sync/push' && duringPush) [later, duringPush] = [duringPush(), null];
        return service.fetch(input, init);
      },
    });
    await crossingCancellations(a, b, uid);
    // B's first push after coming back online: while it travels, B cancels one more occurrence.
    duringPush = () => b.events.removeOccurrence(uid, '2026-07-27T16:00:00.000Z');
    await b.sync();
    await later;
    await b.sync();
    await a.sync();
    for (const c of [a, b]) expect(c.occurrences(july).occurrences.map((o) => o.start.slice(5, 10))).toEqual(['07-06']);
    expect([await a.conflicts.list(), await b.conflicts.list()]).toEqual([[], []]);
  });

  it('a device that cancels an occurrence offline while the other renames the series: both edits stay, and no one is asked; two renames still ask', async () => {
    const { a, b, uid } = await twoDevicesWithGym('+15550001011');
    await a.events.put({ uid, title: 'Gym (new place)' });
    await b.events.removeOccurrence(uid, '2026-07-13T16:00:00.000Z');
    const heard = hearConflicts(a, b);
    for (const c of [a, b, a]) await c.sync();
    for (const c of [a, b]) expect(c.occurrences(july).occurrences.map((o) => [o.start.slice(5, 10), o.title])).toEqual([['07-06', 'Gym (new place)'], ['07-20', 'Gym (new place)'], ['07-27', 'Gym (new place)']]);
    expect({ heard, listed: await a.conflicts.list() }).toEqual({ heard: [], listed: [] });
    // Both rename it offline: one name is lost, and a person chooses (B's push came later, so B's name stands).
    await a.events.put({ uid, title: 'Gym at six' });
    await b.events.put({ uid, title: 'Gym with Sam' });
    for (const c of [a, b, a]) await c.sync();
    const [conflict] = await a.conflicts.list();
    expect([(conflict?.loserSnapshot as { title?: string } | undefined)?.title, a.events.get(uid)?.title]).toEqual(['Gym at six', 'Gym with Sam']);
    // Each device heard of it once.
    expect(heard.map((c) => (c as { conflictId: number }).conflictId)).toEqual([conflict!.conflictId, conflict!.conflictId]);
  });

  /**
   * Device A changes the series (`change`) while device B, offline and still seeing one weekly 18:00
   * Berlin series, cancels 27 July and renames 3 August; `first` reaches the server first. Both
   * devices end with the same occurrences as the server, which the test returns with B's rename.
   */
  async function crossing(phone: string, first: 'a' | 'b', change: (a: SyncClient, uid: string) => Promise<unknown>) {
    const a = await clientOf(service);
    const b = await clientOf(service);
    await signIn(service, a, phone);
    await signIn(service, b, phone);
    const cal = a.calendars.list()[0]!.uid;
    const uid = await a.events.put({ calendarUid: cal, title: 'Gym', startTime: '2026-07-06T16:00:00.000Z', endTime: '2026-07-06T17:00:00.000Z', timezone: 'Europe/Berlin', rrule: 'FREQ=WEEKLY' });
    await a.sync();
    await b.sync();
    const changed = await change(a, uid);
    await b.events.removeOccurrence(uid, '2026-07-27T16:00:00.000Z');
    const renamed = await b.events.editOccurrence(uid, '2026-08-03T16:00:00.000Z', { title: 'Gym with Sam' });
    const heard = hearConflicts(a, b);
    for (const c of first === 'a' ? [a, b, a] : [b, a, b]) await c.sync();
    const window = { from: '2026-07-01T00:00:00Z', to: '2026-08-15T00:00:00Z', tz: 'Europe/Berlin' };
    const seen = (c: SyncClient) => c.occurrences(window).occurrences.map((o) => [o.start.slice(5, 16), o.title]);
    expect(seen(b)).toEqual(seen(a));
    expect(await service.sync.occurrences(a.auth.user()!.id, window)).toEqual(a.occurrences(window));
    // The later push was stale, and the server recorded a conflict; it lost nothing, so the device
    // that pushed it dismissed it, and no one was asked.
    expect({ heard, listed: [await a.conflicts.list(), await b.conflicts.list()] }).toEqual({ heard: [], listed: [[], []] });
    return { shown: seen(a), renamed: b.events.get(renamed), uid, changed };
  }

  it.each([['the split', 'a', '+15550001006'], ['the offline edits', 'b', '+15550001007']] as const)(
    'occurrence edits made offline past a "this and following" split follow it (%s first at the server): cancelled stays cancelled, an edited one shows once',
    async (_, first, phone) => {
      // A: from 20 July on, an hour later at a new place.
      const { shown, renamed, changed } = await crossing(phone, first, (a, uid) =>
        a.events.editOccurrence(uid, '2026-07-20T16:00:00.000Z', { title: 'Gym (new place)', startTime: '2026-07-20T17:00:00.000Z', endTime: '2026-07-20T18:00:00.000Z' }, { scope: 'following' }),
      );
      expect(shown).toEqual([
        ['07-06T16:00', 'Gym'],
        ['07-13T16:00', 'Gym'],
        ['07-20T17:00', 'Gym (new place)'],
        ['08-03T17:00', 'Gym with Sam'],
        ['08-10T17:00', 'Gym (new place)'],
      ]);
      // The renamed occurrence is the same record, now an override of the new series at its new time.
      expect(renamed).toMatchObject({ recurringEventUid: changed, originalStartTime: '2026-08-03T17:00:00.000Z', title: 'Gym with Sam' });
    },
  );

  it.each([['the move', 'a', '+15550001008'], ['the offline edits', 'b', '+15550001009']] as const)(
    'occurrence edits made offline across an "all events" move follow it (%s first at the server): cancelled stays cancelled, an edited one shows once',
    async (_, first, phone) => {
      // A: every occurrence an hour later.
      const { shown, renamed, uid } = await crossing(phone, first, (a, uid) =>
        a.events.editOccurrence(uid, '2026-07-13T16:00:00.000Z', { startTime: '2026-07-13T17:00:00.000Z', endTime: '2026-07-13T18:00:00.000Z' }, { scope: 'all' }),
      );
      expect(shown).toEqual([
        ['07-06T17:00', 'Gym'],
        ['07-13T17:00', 'Gym'],
        ['07-20T17:00', 'Gym'],
        ['08-03T17:00', 'Gym with Sam'],
        ['08-10T17:00', 'Gym'],
      ]);
      // The renamed occurrence is the same record, re-keyed to its occurrence's new time.
      expect(renamed).toMatchObject({ recurringEventUid: uid, originalStartTime: '2026-08-03T17:00:00.000Z', title: 'Gym with Sam' });
    },
  );

  it.each([['the move', 'a', '+15550001013'], ['the offline edit', 'b', '+15550001014']] as const)(
    'an override made before an "all events" move stays the same record: the mover shows it moved at once, and an offline edit of it lands (%s first at the server)',
    async (_, first, phone) => {
      const { a, b, uid } = await twoDevicesWithGym(phone);
      const sam = await a.events.editOccurrence(uid, '2026-07-13T16:00:00.000Z', { title: 'Gym with Sam' });
      const reminder = await a.reminders.put({ eventUid: sam, minutesBefore: 30 });
      await a.sync();
      await b.sync();
      // A moves every occurrence an hour later; B, offline, renames the override.
      await a.events.editOccurrence(uid, '2026-07-06T16:00:00.000Z', { startTime: '2026-07-06T17:00:00.000Z', endTime: '2026-07-06T18:00:00.000Z' }, { scope: 'all' });
      const seen = (c: SyncClient) => c.occurrences(july).occurrences.map((o) => [o.start.slice(5, 16), o.title]);
      const moved = [['07-06T17:00', 'Gym'], ['07-13T17:00', 'Gym with Sam'], ['07-20T17:00', 'Gym'], ['07-27T17:00', 'Gym']];
      expect(seen(a)).toEqual(moved);
      await b.events.editOccurrence(uid, '2026-07-13T16:00:00.000Z', { title: 'Gym with Sam and Kim' });
      const heard = hearConflicts(a, b);
      for (const c of first === 'a' ? [a, b, a] : [b, a, b]) await c.sync();
      for (const c of [a, b]) {
        expect(seen(c)).toEqual(moved.map(([at, title]) => [at, title === 'Gym with Sam' ? 'Gym with Sam and Kim' : title]));
        expect(c.events.get(sam)).toMatchObject({ recurringEventUid: uid, originalStartTime: '2026-07-13T17:00:00.000Z' });
        expect(c.reminders.get(reminder)).toMatchObject({ eventUid: sam, minutesBefore: 30 });
      }
      expect(await service.sync.occurrences(a.auth.user()!.id, july)).toEqual(a.occurrences(july));
      expect({ heard, listed: [await a.conflicts.list(), await b.conflicts.list()] }).toEqual({ heard: [], listed: [[], []] });
    },
  );

  it("moves a series with its changed occurrences to another calendar; one occurrence alone cannot leave its series' calendar", async () => {
    const a = await clientOf(service);
    const b = await clientOf(service);
    await signIn(service, a, '+15550001008');
    await signIn(service, b, '+15550001008');
    const home = a.calendars.list()[0]!.uid;
    const work = await a.calendars.put({ name: 'Work' });
    const uid = await a.events.put({ calendarUid: home, title: 'Yoga', startTime: '2026-07-06T16:00:00.000Z', endTime: '2026-07-06T17:00:00.000Z', timezone: 'Europe/Berlin', rrule: 'FREQ=WEEKLY' });
    const shifted = await a.events.editOccurrence(uid, '2026-07-13T16:00:00.000Z', { title: 'Yoga (shifted)', startTime: '2026-07-13T17:00:00.000Z', endTime: '2026-07-13T18:00:00.000Z' });
    await a.sync();
    await expect(a.events.editOccurrence(uid, '2026-07-20T16:00:00.000Z', { calendarUid: work }, { scope: 'this' })).rejects.toThrow(/series' calendar/);
    await a.events.editOccurrence(uid, '2026-07-06T16:00:00.000Z', { calendarUid: work }, { scope: 'all' });
    await a.sync();
    await b.sync();
    for (const c of [a, b]) {
      expect(c.events.get(shifted)).toMatchObject({ calendarUid: work, title: 'Yoga (shifted)' });
      const inHome = c.occurrences({ ...july, calendarUids: [home] }).occurrences;
      const inWork = c.occurrences({ ...july, calendarUids: [work] }).occurrences;
      expect([inHome.length, inWork.map((o) => o.title)]).toEqual([0, ['Yoga', 'Yoga (shifted)', 'Yoga', 'Yoga']]);
    }
    expect(await a.conflicts.list()).toEqual([]);
  });

  it('an all-day event stays on its date; a midnight-UTC instant is stored as that date', async () => {
    const a = await clientOf(service);
    await signIn(service, a, '+15550001004');
    const cal = a.calendars.list()[0]!.uid;
    const uid = await a.events.put({ calendarUid: cal, title: 'Holiday', allDay: true, startTime: '2026-03-10T00:00:00.000Z', endTime: '2026-03-11T00:00:00.000Z' });
    expect(a.events.get(uid)).toMatchObject({ startTime: '2026-03-10', endTime: '2026-03-11' });
    await a.sync();
    const pulled = (await service.sync.pull(a.auth.user()!.id, {})).events.find((e) => e.uid === uid);
    expect([pulled?.startTime, pulled?.endTime]).toEqual(['2026-03-10', '2026-03-11']);
    for (const tz of ['America/Los_Angeles', 'Pacific/Kiritimati']) {
      expect(a.occurrences({ from: '2026-03-01T00:00:00Z', to: '2026-04-01T00:00:00Z', tz }).occurrences.map((o) => o.start)).toEqual(['2026-03-10']);
    }
  });
});
