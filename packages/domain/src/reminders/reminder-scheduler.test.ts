import { InMemoryReminderStore, InMemorySchedulerLease, InMemorySyncStore, ManualClock } from '@calsync/testkit';
import { describe, expect, it } from 'vitest';
import { CursorCodec } from '../cursor/cursor-codec.js';
import type { ReminderAlert, UserAlert } from '../ports/change-feed.js';
import { DEFAULT_NOTIFICATION_SETTINGS, type NotificationSettings } from '../ports/user-store.js';
import type { RecordType } from '../records/types.js';
import { SyncService } from '../sync/sync-service.js';
import type { PushItem } from '../sync/types.js';
import { REMINDER_LEASE, ReminderScheduler } from './reminder-scheduler.js';

const U = 1;
const MIN = 60_000;
const HOUR = 60 * MIN;

/** A sync engine, the reminder store over it, and schedulers on a shared lease, all on one manual clock. */
function setup(start: string, opts: { graceMs?: number } = {}) {
  const clock = new ManualClock(start);
  const store = new InMemorySyncStore();
  const sync = new SyncService({ store, clock, cursorCodec: new CursorCodec('k') });
  const reminders = new InMemoryReminderStore(store);
  const lease = new InMemorySchedulerLease();
  const settings = new Map<number, NotificationSettings>();
  const heard: ReminderAlert[] = [];
  const pushed: UserAlert[] = [];
  let skipped = 0;
  const lateness: number[] = [];
  const node = (holder: string) => {
    const scheduler = new ReminderScheduler({
      store: reminders,
      lease,
      clock,
      settings: async (ids) => new Map(ids.map((id) => [id, settings.get(id) ?? DEFAULT_NOTIFICATION_SETTINGS])),
      holder,
      graceMs: opts.graceMs ?? HOUR,
      leaseMs: 5000,
      pushes: { alerted: (a) => pushed.push(a) },
      observer: { skipped: (n) => (skipped += n), sent: (ms) => lateness.push(ms) },
    });
    store.changes.subscribe({ changed: (c) => scheduler.changed(c.userId), sessionEnded: () => {}, resynced: () => scheduler.resynced(), alerted: () => {} });
    return scheduler;
  };
  store.changes.subscribe({ changed: () => {}, sessionEnded: () => {}, resynced: () => {}, alerted: (a) => a.kind === 'reminder' && heard.push(a) });
  const scheduler = node('node-1');
  const push = async (type: RecordType, uid: string, fields: Record<string, unknown>, op: 'upsert' | 'delete' = 'upsert', user = U) => {
    const base = store.snapshotRows(user, type).find((r) => r.uid === uid)?.version;
    const item: PushItem = { uid, op, baseVersion: base === undefined ? null : base.toString(), fields };
    const res = await sync.push(user, { [type]: [item] });
    expect(res[type][0]!.status).not.toBe('error');
  };
  /** Ticks every `stepMs` until `ms` passed (the poll loop of a node). */
  const run = async (ms: number, stepMs = 1000, nodes: ReminderScheduler[] = [scheduler]) => {
    for (let t = 0; t < ms; t += stepMs) {
      clock.advance(stepMs);
      for (const n of nodes) await n.tick();
    }
  };
  return { clock, store, reminders, lease, settings, heard, pushed, scheduler, node, push, run, skippedCount: () => skipped, lateness };
}

describe('ReminderScheduler', () => {
  it('sends a reminder on a one-off event minutesBefore its start, once, within a tick of its due time', async () => {
    const s = setup('2026-05-04T08:00:00.000Z');
    await s.scheduler.tick();
    await s.push('calendars', 'c', { name: 'Work' });
    await s.push('events', 'e', { calendarUid: 'c', title: 'Dentist', startTime: '2026-05-04T08:30:00.000Z', endTime: '2026-05-04T09:00:00.000Z' });
    await s.push('reminders', 'r', { eventUid: 'e', minutesBefore: 10 });
    await s.run(19 * MIN);
    expect(s.heard).toEqual([]);
    await s.run(2 * MIN);
    expect(s.heard).toEqual([
      { kind: 'reminder', userId: U, reminderUid: 'r', eventUid: 'e', occurrenceStart: '2026-05-04T08:30:00.000Z', title: 'Dentist', start: '2026-05-04T08:30:00.000Z', dueAt: '2026-05-04T08:20:00.000Z' },
    ]);
    expect(s.pushed).toEqual(s.heard);
    expect(Math.max(...s.lateness)).toBeLessThanOrEqual(1000);
    await s.run(HOUR);
    expect(s.heard).toHaveLength(1);
  });

  it('keeps a series at its wall-clock time across a daylight-saving change in the series\' zone', async () => {
    const s = setup('2026-03-27T00:00:00.000Z');
    await s.scheduler.tick();
    await s.push('calendars', 'c', { name: 'Home', timezone: 'Europe/Berlin' });
    // 09:00 in Berlin every day: 08:00Z before 29 March (CET), 07:00Z from then (CEST).
    await s.push('events', 's', { calendarUid: 'c', title: 'Walk', startTime: '2026-03-27T08:00:00.000Z', endTime: '2026-03-27T08:30:00.000Z', rrule: 'FREQ=DAILY;COUNT=4' });
    await s.push('reminders', 'r', { eventUid: 's', minutesBefore: 10 });
    await s.run(4 * 24 * HOUR, 30_000);
    expect(s.heard.map((a) => [a.occurrenceStart, a.dueAt])).toEqual([
      ['2026-03-27T08:00:00.000Z', '2026-03-27T07:50:00.000Z'],
      ['2026-03-28T08:00:00.000Z', '2026-03-28T07:50:00.000Z'],
      ['2026-03-29T07:00:00.000Z', '2026-03-29T06:50:00.000Z'],
      ['2026-03-30T07:00:00.000Z', '2026-03-30T06:50:00.000Z'],
    ]);
  });

  it('follows an override that moves an occurrence and skips an exdate', async () => {
    const s = setup('2026-06-01T00:00:00.000Z');
    await s.scheduler.tick();
    await s.push('calendars', 'c', { name: 'Work' });
    await s.push('events', 's', {
      calendarUid: 'c', title: 'Stand-up', startTime: '2026-06-01T10:00:00.000Z', endTime: '2026-06-01T10:15:00.000Z',
      rrule: 'FREQ=DAILY;COUNT=4', exdate: '2026-06-03T10:00:00.000Z',
    });
    await s.push('events', 'moved', {
      calendarUid: 'c', title: 'Stand-up (late)', startTime: '2026-06-02T14:00:00.000Z', endTime: '2026-06-02T14:15:00.000Z',
      recurringEventUid: 's', originalStartTime: '2026-06-02T10:00:00.000Z',
    });
    await s.push('reminders', 'r', { eventUid: 's', minutesBefore: 15 });
    await s.run(4 * 24 * HOUR, 30_000);
    expect(s.heard.map((a) => [a.eventUid, a.occurrenceStart, a.dueAt, a.title])).toEqual([
      ['s', '2026-06-01T10:00:00.000Z', '2026-06-01T09:45:00.000Z', 'Stand-up'],
      ['moved', '2026-06-02T14:00:00.000Z', '2026-06-02T13:45:00.000Z', 'Stand-up (late)'],
      ['s', '2026-06-04T10:00:00.000Z', '2026-06-04T09:45:00.000Z', 'Stand-up'],
    ]);
  });

  it('sends at remindAt and before a task\'s dueAt, not for a completed task', async () => {
    const s = setup('2026-05-04T08:00:00.000Z');
    await s.scheduler.tick();
    await s.push('tasks', 't', { title: 'Taxes', dueAt: '2026-05-04T09:00:00.000Z' });
    await s.push('tasks', 'done', { title: 'Done', dueAt: '2026-05-04T09:00:00.000Z', completed: true });
    await s.push('reminders', 'rt', { taskUid: 't', minutesBefore: 30 });
    await s.push('reminders', 'rd', { taskUid: 'done', minutesBefore: 30 });
    await s.push('tasks', 'call', { title: 'Call mum' });
    await s.push('reminders', 'ra', { taskUid: 'call', remindAt: '2026-05-04T08:05:00.000Z' });
    await s.run(HOUR);
    expect(s.heard.map((a) => [a.reminderUid, a.dueAt, a.title, a.taskUid ?? null])).toEqual([
      ['ra', '2026-05-04T08:05:00.000Z', 'Call mum', 'call'],
      ['rt', '2026-05-04T08:30:00.000Z', 'Taxes', 't'],
    ]);
  });

  it('an edit before the due time sends at the new time only; a delete before it sends nothing', async () => {
    const s = setup('2026-05-04T08:00:00.000Z');
    await s.scheduler.tick();
    await s.push('calendars', 'c', { name: 'Work' });
    await s.push('events', 'e', { calendarUid: 'c', title: 'Moved', startTime: '2026-05-04T08:30:00.000Z', endTime: '2026-05-04T09:00:00.000Z' });
    await s.push('events', 'gone', { calendarUid: 'c', title: 'Cancelled', startTime: '2026-05-04T08:30:00.000Z', endTime: '2026-05-04T09:00:00.000Z' });
    await s.push('reminders', 'r', { eventUid: 'e', minutesBefore: 10 });
    await s.push('reminders', 'rg', { eventUid: 'gone', minutesBefore: 10 });
    await s.run(10 * MIN);
    await s.push('events', 'e', { startTime: '2026-05-04T09:30:00.000Z', endTime: '2026-05-04T10:00:00.000Z' });
    await s.push('reminders', 'rg', {}, 'delete');
    await s.run(2 * HOUR);
    expect(s.heard.map((a) => [a.reminderUid, a.dueAt])).toEqual([['r', '2026-05-04T09:20:00.000Z']]);
  });

  it('an event moved after its reminder was sent reminds again at the new time, unless that time has passed', async () => {
    const s = setup('2026-05-04T08:00:00.000Z');
    await s.scheduler.tick();
    await s.push('calendars', 'c', { name: 'Work' });
    await s.push('events', 'e', { calendarUid: 'c', title: 'Call', startTime: '2026-05-04T08:30:00.000Z', endTime: '2026-05-04T09:00:00.000Z' });
    await s.push('reminders', 'r', { eventUid: 'e', minutesBefore: 10 });
    await s.run(25 * MIN);
    expect(s.heard).toHaveLength(1);
    // Five minutes later: its new due time (08:25) has passed, so nothing more.
    await s.push('events', 'e', { startTime: '2026-05-04T08:35:00.000Z', endTime: '2026-05-04T09:05:00.000Z' });
    await s.run(5 * MIN);
    expect(s.heard).toHaveLength(1);
    // An hour later: reminded again for the new start.
    await s.push('events', 'e', { startTime: '2026-05-04T09:35:00.000Z', endTime: '2026-05-04T10:05:00.000Z' });
    await s.run(HOUR);
    expect(s.heard.map((a) => a.occurrenceStart)).toEqual(['2026-05-04T08:30:00.000Z', '2026-05-04T09:35:00.000Z']);
  });

  it('sends nothing while eventReminders is off, and does not send it later when switched back on', async () => {
    const s = setup('2026-05-04T08:00:00.000Z');
    s.settings.set(U, { ...DEFAULT_NOTIFICATION_SETTINGS, eventReminders: false });
    await s.scheduler.tick();
    await s.push('tasks', 't', { title: 'Note' });
    await s.push('reminders', 'r', { taskUid: 't', remindAt: '2026-05-04T08:05:00.000Z' });
    await s.run(10 * MIN);
    s.settings.set(U, DEFAULT_NOTIFICATION_SETTINGS);
    await s.run(10 * MIN);
    expect(s.heard).toEqual([]);
    expect(s.pushed).toEqual([]);
    expect([...s.reminders.deliveries.values()].map((d) => d.outcome)).toEqual(['off']);
  });

  it('settles the users due in one tick together, each by their own records and switch', async () => {
    const s = setup('2026-05-04T08:00:00.000Z');
    s.settings.set(3, { ...DEFAULT_NOTIFICATION_SETTINGS, eventReminders: false });
    await s.scheduler.tick();
    // Three users with the same uids, due in the same second: one has reminders off, one moves its task later.
    for (const user of [1, 2, 3, 4]) {
      await s.push('tasks', 't', { title: `Task of ${user}` }, 'upsert', user);
      await s.push('reminders', 'r', { taskUid: 't', remindAt: '2026-05-04T08:05:00.500Z' }, 'upsert', user);
    }
    await s.push('reminders', 'r', { remindAt: '2026-05-04T08:30:00.000Z' }, 'upsert', 4);
    await s.run(10 * MIN);
    expect(s.heard.map((a) => [a.userId, a.title, a.dueAt])).toEqual([
      [1, 'Task of 1', '2026-05-04T08:05:00.500Z'],
      [2, 'Task of 2', '2026-05-04T08:05:00.500Z'],
    ]);
    expect(s.pushed).toEqual(s.heard);
    expect([...s.reminders.deliveries.values()].filter((d) => d.userId === 3).map((d) => d.outcome)).toEqual(['off']);
    await s.run(30 * MIN);
    expect(s.heard.map((a) => [a.userId, a.dueAt])).toEqual([
      [1, '2026-05-04T08:05:00.500Z'],
      [2, '2026-05-04T08:05:00.500Z'],
      [4, '2026-05-04T08:30:00.000Z'],
    ]);
  });

  it('moves the checked-through instant on under a steady write load (a change heard during every tick), so settled reminders are not looked at again', async () => {
    const s = setup('2026-05-04T08:00:00.000Z');
    await s.scheduler.tick();
    await s.push('tasks', 't', { title: 'Note' });
    await s.push('reminders', 'r', { taskUid: 't', remindAt: '2026-05-04T08:00:03.000Z' });
    // The user's devices write all the time: a change is heard while every tick settles the due users.
    const dueBy = s.reminders.usersDueBy.bind(s.reminders);
    s.reminders.usersDueBy = async (until, limit) => {
      s.scheduler.changed(U);
      return dueBy(until, limit);
    };
    await s.run(10_000);
    expect(s.heard.map((a) => a.reminderUid)).toEqual(['r']);
    const { checkedThrough } = await s.lease.acquire(REMINDER_LEASE, 'node-1', s.clock.now().toISOString(), 5000);
    expect(checkedThrough).toBe('2026-05-04T08:00:10.000Z');
  });

  it('after an outage sends the missed reminders younger than REMINDER_GRACE and counts the older ones as skipped', async () => {
    const s = setup('2026-05-04T08:00:00.000Z', { graceMs: HOUR });
    await s.scheduler.tick();
    await s.push('tasks', 't', { title: 'Note' });
    await s.push('reminders', 'old', { taskUid: 't', remindAt: '2026-05-04T08:30:00.000Z' });
    await s.push('reminders', 'young', { taskUid: 't', remindAt: '2026-05-04T09:45:00.000Z' });
    await s.run(10 * MIN);
    // The service is down from 08:10 to 10:00: a new node starts (the lease of the old one has expired).
    s.clock.advance(110 * MIN);
    const restarted = s.node('node-2');
    await restarted.tick();
    expect(s.heard.map((a) => a.reminderUid)).toEqual(['young']);
    expect(s.skippedCount()).toBe(1);
    await s.run(HOUR, 1000, [restarted]);
    expect(s.heard).toHaveLength(1);
  });

  it('one node schedules at a time; when it stops another takes over within the lease and sends each reminder once', async () => {
    const s = setup('2026-05-04T08:00:00.000Z');
    const other = s.node('node-2');
    await s.run(1000, 1000, [s.scheduler, other]);
    expect([s.scheduler.leader, other.leader]).toEqual([true, false]);
    await s.push('tasks', 't', { title: 'Note' });
    await s.push('reminders', 'a', { taskUid: 't', remindAt: '2026-05-04T08:01:00.000Z' });
    await s.push('reminders', 'b', { taskUid: 't', remindAt: '2026-05-04T08:02:00.000Z' });
    await s.run(70_000, 1000, [s.scheduler, other]);
    expect(s.heard.map((a) => a.reminderUid)).toEqual(['a']);
    // node-1 dies just before b is due: node-2 takes over once the 5 s lease ran out and sends b once.
    await s.run(60_000, 1000, [other]);
    expect(other.leader).toBe(true);
    expect(s.heard.map((a) => a.reminderUid)).toEqual(['a', 'b']);
    expect(Math.max(...s.lateness)).toBeLessThanOrEqual(6000);
  });
});
