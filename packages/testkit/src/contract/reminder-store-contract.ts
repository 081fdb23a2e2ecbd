import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeFeed, DeliveryRecord, ReminderAlert, ReminderStore, SchedulerLease, SyncStore, UserAlert } from '@calsync/domain';
import { insertRows, pause, sampleFields } from './fixtures.js';
import { until } from '../until.js';

/** What the reminder store contract needs: the stores under test, a second node's lease on the same database, and the sync store that fills it. */
export interface ReminderHarness {
  readonly reminders: ReminderStore;
  readonly lease: SchedulerLease;
  /** The same leases seen by another node (its own connection pool where the engine has one). */
  readonly otherLease: SchedulerLease;
  readonly store: SyncStore;
  /** The feed `recordDeliveries` announces sent reminders on. */
  readonly feed: ChangeFeed;
  createUser(): Promise<number>;
  close(): Promise<void>;
}

const T0 = '2026-03-01T09:00:00.000Z';
const at = (offsetMs: number): string => new Date(Date.parse(T0) + offsetMs).toISOString();

function delivery(userId: number, reminderUid: string, occurrenceStart: string, outcome: DeliveryRecord['outcome'] = 'sent'): DeliveryRecord {
  const alert: ReminderAlert = { kind: 'reminder', userId, reminderUid, eventUid: 'ev', occurrenceStart, title: 'Stand-up ☕', start: occurrenceStart, dueAt: T0 };
  return { userId, reminderUid, occurrenceStart, dueAt: T0, outcome, recordedAt: T0, alert: outcome === 'sent' ? alert : null };
}

/**
 * The `ReminderStore` and `SchedulerLease` contract: sources are the live records each user's
 * reminders name (many users in one read, kept apart); plans are replaced per user and found by due time; a delivery is recorded once
 * per (user, reminder, occurrence) even when two callers race, and only the recorded `sent` one is
 * announced; one lease holder at a time, taken over once expired.
 */
export function runReminderStoreContract(name: string, open: () => Promise<ReminderHarness>): void {
  describe(`ReminderStore contract: ${name}`, () => {
    let harness: ReminderHarness | undefined;
    beforeAll(async () => {
      harness = await open();
    });
    afterAll(async () => {
      await harness?.close();
    });
    const h = (): ReminderHarness => {
      if (harness === undefined) throw new Error('store not open');
      return harness;
    };

    it('reads the live reminders, the events and series overrides they name, the tasks they name, and calendar zones', async () => {
      const { store, reminders, createUser } = h();
      const user = await createUser();
      await insertRows(store, user, [
        { type: 'calendars', uid: 'cal', fields: sampleFields('calendars') },
        { type: 'events', uid: 'series', fields: sampleFields('events', { calendarUid: 'cal' }) },
        { type: 'events', uid: 'override', fields: { ...sampleFields('events', { calendarUid: 'cal' }), rrule: null, exdate: null, recurringEventUid: 'series', originalStartTime: '2024-03-01T08:30:00.123Z' } },
        { type: 'events', uid: 'unrelated', fields: sampleFields('events', { calendarUid: 'cal' }) },
        { type: 'tasks', uid: 'task', fields: sampleFields('tasks') },
        { type: 'tasks', uid: 'other-task', fields: sampleFields('tasks') },
        { type: 'reminders', uid: 'on-series', fields: sampleFields('reminders', { eventUid: 'series' }) },
        { type: 'reminders', uid: 'on-task', fields: sampleFields('reminders', { taskUid: 'task' }) },
        { type: 'reminders', uid: 'gone', fields: sampleFields('reminders', { eventUid: 'unrelated' }), deleted: T0 },
      ]);
      const other = await createUser();
      await insertRows(store, other, [
        { type: 'calendars', uid: 'cal', fields: { ...sampleFields('calendars'), timezone: 'Asia/Tokyo' } },
        { type: 'events', uid: 'series', fields: { ...sampleFields('events', { calendarUid: 'cal' }), title: 'not the first user\'s' } },
        { type: 'reminders', uid: 'on-series', fields: sampleFields('reminders', { eventUid: 'series' }) },
      ]);
      const empty = await createUser();
      const read = await reminders.readSources([user, other, empty]);
      expect([...read.keys()].sort((a, b) => a - b)).toEqual([user, other, empty]);
      const sources = read.get(user)!;
      expect(sources.reminders.map((r) => r.uid).sort()).toEqual(['on-series', 'on-task']);
      expect(sources.reminders.find((r) => r.uid === 'on-series')!.fields).toEqual(sampleFields('reminders', { eventUid: 'series' }));
      expect(sources.events.map((e) => e.uid).sort()).toEqual(['override', 'series']);
      expect(sources.events.find((e) => e.uid === 'series')!.fields.rrule).toBe('FREQ=WEEKLY;COUNT=4;BYDAY=MO,WE');
      expect(sources.tasks.map((t) => t.uid)).toEqual(['task']);
      expect(sources.tasks[0]!.fields.dueAt).toBe(sampleFields('tasks').dueAt);
      expect(sources.calendarZones.get('cal')).toBe('Europe/Berlin');
      expect(read.get(empty)).toMatchObject({ reminders: [], events: [], tasks: [] });
      // Each user's sources are that user's alone, the same uids notwithstanding.
      const others = read.get(other)!;
      expect(others.reminders.map((r) => r.uid)).toEqual(['on-series']);
      expect(others.events.map((e) => e.fields.title)).toEqual(['not the first user\'s']);
      expect(others.tasks).toEqual([]);
      expect(others.calendarZones.get('cal')).toBe('Asia/Tokyo');
      expect((await reminders.readSources([])).size).toBe(0);
    });

    it('replaces the plans of the users named (and no other\'s) and names the users due by an instant, earliest first, within the limit', async () => {
      const { reminders, createUser } = h();
      const [a, b, c] = [await createUser(), await createUser(), await createUser()];
      await reminders.replacePlans(
        new Map([
          [a, [{ reminderUid: 'r1', dueAt: at(60_000) }, { reminderUid: 'r2', dueAt: at(10_000) }]],
          [b, [{ reminderUid: 'r1', dueAt: at(5_000) }]],
          [c, [{ reminderUid: 'r1', dueAt: at(3_600_000) }]],
        ]),
      );
      const mine = (ids: number[]) => ids.filter((id) => [a, b, c].includes(id));
      expect(mine(await reminders.usersDueBy(at(0), 100))).toEqual([]);
      expect(mine(await reminders.usersDueBy(at(10_000), 100))).toEqual([b, a]);
      expect(mine(await reminders.usersDueBy(at(7_200_000), 100))).toEqual([b, a, c]);
      expect((await reminders.usersDueBy(at(7_200_000), 1)).length).toBe(1);
      await reminders.replacePlans(new Map([[a, [{ reminderUid: 'r3', dueAt: at(120_000) }]]]));
      expect(mine(await reminders.usersDueBy(at(60_000), 100))).toEqual([b]);
      await reminders.replacePlans(new Map([[b, []]]));
      expect(mine(await reminders.usersDueBy(at(60_000), 100))).toEqual([]);
      expect(mine(await reminders.usersDueBy(at(7_200_000), 100))).toEqual([a, c]);
      await reminders.replacePlans(new Map());
      expect(mine(await reminders.usersDueBy(at(7_200_000), 100))).toEqual([a, c]);
    });

    it('names the users with live reminders in id order after a given id', async () => {
      const { store, reminders, createUser } = h();
      const [a, b, none] = [await createUser(), await createUser(), await createUser()];
      await insertRows(store, a, [{ type: 'reminders', uid: 'r', fields: { ...sampleFields('reminders'), remindAt: T0 } }]);
      await insertRows(store, b, [{ type: 'reminders', uid: 'r', fields: { ...sampleFields('reminders'), remindAt: T0 } }]);
      await insertRows(store, none, [{ type: 'reminders', uid: 'r', fields: { ...sampleFields('reminders'), remindAt: T0 }, deleted: T0 }]);
      const all = await reminders.usersWithReminders(a - 1, 1000);
      expect(all).toContain(a);
      expect(all).toContain(b);
      expect(all).not.toContain(none);
      expect(all).toEqual([...all].sort((x, y) => x - y));
      expect(await reminders.usersWithReminders(a, 1000)).not.toContain(a);
      expect(await reminders.usersWithReminders(a - 1, 1)).toEqual([a]);
    });

    it('records a delivery once per (user, reminder, occurrence), also when callers race, and announces only that one', async () => {
      const { reminders, feed, createUser } = h();
      const [user, other] = [await createUser(), await createUser()];
      const heard: UserAlert[] = [];
      const stop = feed.subscribe({ changed: () => {}, sessionEnded: () => {}, resynced: () => {}, alerted: (a) => heard.push(a) });
      try {
        const racing = await Promise.all(Array.from({ length: 6 }, () => reminders.recordDeliveries([delivery(user, 'r1', T0)])));
        expect(racing.filter(([stored]) => stored)).toHaveLength(1);
        // One call: the known one not stored again, a key twice stored once, the rest each stored.
        expect(
          await reminders.recordDeliveries([
            delivery(user, 'r1', T0, 'skipped'),
            delivery(user, 'r1', at(86_400_000)),
            delivery(other, 'r1', T0),
            delivery(user, 'r2', T0, 'skipped'),
            delivery(user, 'r3', T0, 'off'),
            delivery(user, 'r1', at(86_400_000)),
          ]),
        ).toEqual([false, true, true, true, true, false]);
        expect(await reminders.recordDeliveries([])).toEqual([]);
        await until(() => heard.filter((a) => a.userId === user || a.userId === other).length >= 3);
        await pause(50);
        const mine = heard.filter((a) => a.userId === user);
        expect(mine).toEqual([delivery(user, 'r1', T0).alert, delivery(user, 'r1', at(86_400_000)).alert]);
        expect(heard.filter((a) => a.userId === other)).toHaveLength(1);
      } finally {
        stop();
      }
    });

    it('forgets delivery records due before an instant, at most the limit', async () => {
      const { reminders, createUser } = h();
      const user = await createUser();
      const old = { ...delivery(user, 'p', T0, 'off'), dueAt: '2001-01-01T00:00:00.000Z' };
      await reminders.recordDeliveries([old, { ...old, occurrenceStart: 'second' }]);
      expect(await reminders.pruneDeliveries('2001-01-02T00:00:00.000Z', 1)).toBe(1);
      while ((await reminders.pruneDeliveries('2001-01-02T00:00:00.000Z', 100)) > 0);
      expect(await reminders.recordDeliveries([old, delivery(user, 'p-new', T0, 'off')])).toEqual([true, true]);
      await reminders.pruneDeliveries('2001-01-02T00:00:00.000Z', 100);
      expect(await reminders.recordDeliveries([delivery(user, 'p-new', T0, 'off')])).toEqual([false]);
    });

    it('a lease has one holder at a time; another takes it once it expired or was released; checkedThrough only moves forward for the holder', async () => {
      const { lease, otherLease } = h();
      const name = `lease-${Math.random().toString(36).slice(2)}`;
      expect(await lease.acquire(name, 'node-a', at(0), 5000)).toEqual({ held: true, checkedThrough: null });
      expect((await otherLease.acquire(name, 'node-b', at(1000), 5000)).held).toBe(false);
      expect((await lease.acquire(name, 'node-a', at(4000), 5000)).held).toBe(true);
      expect((await otherLease.acquire(name, 'node-b', at(8000), 5000)).held).toBe(false);
      expect(await lease.advance(name, 'node-a', at(8000))).toBe(true);
      expect(await lease.advance(name, 'node-a', at(7000))).toBe(true);
      expect(await otherLease.advance(name, 'node-b', at(20_000))).toBe(false);
      expect(await otherLease.acquire(name, 'node-b', at(9001), 5000)).toEqual({ held: true, checkedThrough: at(8000) });
      expect((await lease.acquire(name, 'node-a', at(9500), 5000)).held).toBe(false);
      await lease.release(name, 'node-a');
      expect((await lease.acquire(name, 'node-a', at(9600), 5000)).held).toBe(false);
      await otherLease.release(name, 'node-b');
      expect((await lease.acquire(name, 'node-a', at(9700), 5000)).held).toBe(true);
    });

    it('of nodes racing for a free lease exactly one gets it', async () => {
      const { lease, otherLease } = h();
      const name = `race-${Math.random().toString(36).slice(2)}`;
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? lease : otherLease).acquire(name, `node-${i}`, at(0), 5000)));
      expect(answers.filter((a) => a.held)).toHaveLength(1);
    });
  });
}
