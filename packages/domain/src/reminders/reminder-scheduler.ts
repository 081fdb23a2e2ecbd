import type { AlertNotifier, ReminderAlert } from '../ports/change-feed.js';
import type { Clock } from '../ports/clock.js';
import type { DeliveryOutcome, DeliveryRecord, ReminderStore } from '../ports/reminder-store.js';
import type { SchedulerLease } from '../ports/scheduler-lease.js';
import type { NotificationSettings } from '../ports/user-store.js';
import { dueReminders, planReminders } from './reminder-due.js';

/** The lease the reminder scheduler runs under. */
export const REMINDER_LEASE = 'reminders';

/**
 * Users handled per tick and step: re-planned (changed users, or a full re-plan walking them all)
 * and settled (users with a plan due). More wait for the next tick (the checked-through instant
 * then stays).
 *
 * Each step reads and writes its users in one batch (`ReminderStore`), so a tick costs a fixed
 * handful of database round trips however many users it handles. Handling one user at a time cost
 * a dozen sequential round trips per user, each waiting its turn at a database busy with 100 devices
 * syncing (about 100 ms per due user): 50 users due per tick took 5 s, the next tick came 5 s
 * later, and reminders were 7 to 15 s late (bench --many-devices, 2026-11-26).
 */
const BATCH = 500;

/** Where the scheduler reports (metrics and logs). */
export interface ReminderObserver {
  /** A reminder was announced to the user's streams, `latenessMs` after it fell due. */
  sent?(latenessMs: number): void;
  /** Reminders that fell due longer than REMINDER_GRACE ago (after an outage) and were not sent. */
  skipped?(count: number): void;
  /** This node took (true) or lost (false) the lease. */
  leadership?(held: boolean): void;
}

/** Dependencies of `ReminderScheduler`. */
export interface ReminderSchedulerDeps {
  readonly store: ReminderStore;
  readonly lease: SchedulerLease;
  readonly clock: Clock;
  /** The notification switches of the users asked for that exist (one missing is gone). */
  readonly settings: (userIds: readonly number[]) => Promise<ReadonlyMap<number, NotificationSettings>>;
  /** This node's name in the lease (unique per process). */
  readonly holder: string;
  /** REMINDER_GRACE: missed reminders older than this are skipped, not sent. */
  readonly graceMs: number;
  /** How long a taken lease lasts without renewal: another node takes over this long after this one stops. */
  readonly leaseMs: number;
  /** Told of every reminder sent (after its commit): the FCM push. */
  readonly pushes?: AlertNotifier;
  readonly observer?: ReminderObserver;
}

/**
 * Sends each reminder once when it falls due (docs/protocol.md, "Reminders"). One node at a time
 * runs it (the lease); `tick` is called every poll interval on every node and does nothing where
 * the lease is held elsewhere.
 *
 * The store keeps a plan: each reminder's next due time. A change of a user's data (`changed`)
 * re-plans that user; so does taking the lease (every user, in batches), since changes made while
 * no node planned were not heard. When a plan falls due the user's reminders are computed afresh
 * from the stored records (so an edit or delete that was not yet re-planned still counts), and each
 * (reminder, occurrence) due after the lease's checked-through instant is recorded once: sent,
 * skipped when older than REMINDER_GRACE, or not sent when the user turned `eventReminders` off. A
 * due time that is already past when it is first planned (an event moved into the past) is not sent.
 */
export class ReminderScheduler {
  readonly #deps: ReminderSchedulerDeps;
  readonly #dirty = new Set<number>();
  #leader = false;
  /** The next user id of a full re-plan under way; null when none is. */
  #sweepAfter: number | null = null;

  constructor(deps: ReminderSchedulerDeps) {
    this.#deps = deps;
  }

  /** True while this node holds the lease (as of the last tick). */
  get leader(): boolean {
    return this.#leader;
  }

  /** The user's synchronised data changed (the change feed, on any node): re-plan the user. */
  changed(userId: number): void {
    if (this.#leader) this.#dirty.add(userId);
  }

  /** The change feed may have missed changes: re-plan every user. */
  resynced(): void {
    if (this.#leader) this.#sweepAfter = 0;
  }

  /** One round: take or renew the lease; re-plan changed users; send what fell due; advance the checked-through instant. */
  async tick(): Promise<void> {
    const d = this.#deps;
    const now = d.clock.now().getTime();
    const lease = await d.lease.acquire(REMINDER_LEASE, d.holder, new Date(now).toISOString(), d.leaseMs);
    if (lease.held !== this.#leader) {
      this.#leader = lease.held;
      d.observer?.leadership?.(lease.held);
      this.#dirty.clear();
      this.#sweepAfter = lease.held ? 0 : null;
    }
    if (!lease.held) return;
    const checked = lease.checkedThrough === null ? now - d.graceMs : Math.min(Date.parse(lease.checkedThrough), now);

    const drained = this.#dirty.size <= BATCH;
    const changed = [...this.#dirty].slice(0, BATCH);
    for (const userId of changed) this.#dirty.delete(userId);
    await this.#replan(changed, checked);
    if (this.#sweepAfter !== null) {
      const users = await d.store.usersWithReminders(this.#sweepAfter, BATCH);
      await this.#replan(users, checked);
      this.#sweepAfter = users.length < BATCH ? null : users[users.length - 1]!;
    }

    const due = await d.store.usersDueBy(new Date(now).toISOString(), BATCH);
    await this.#deliver(due, checked, now);
    // Every user changed before this tick began was re-planned and everything due by then settled:
    // `now` is checked through. Users changed during the tick are re-planned at the next one from
    // `now`, which is all they need (a due time at or before `now` had passed when they changed).
    // Advancing only when no change at all was heard during the tick never happened under a steady
    // write load: `checked` stayed at the load's start, every user was due again at every tick, and
    // each tick re-derived every reminder since then (the work grew without bound).
    if (drained && this.#sweepAfter === null && due.length < BATCH) {
      await d.lease.advance(REMINDER_LEASE, d.holder, new Date(now).toISOString());
      // Delivery records below the checked-through instant can never be candidates again.
      await d.store.pruneDeliveries(new Date(Math.min(checked, now - d.graceMs) - 86_400_000).toISOString(), 1000);
    }
  }

  /** Gives the lease up (shutdown), so another node takes over at once. */
  async release(): Promise<void> {
    if (!this.#leader) return;
    this.#leader = false;
    await this.#deps.lease.release(REMINDER_LEASE, this.#deps.holder);
  }

  async #replan(userIds: readonly number[], after: number): Promise<void> {
    if (userIds.length === 0) return;
    const sources = await this.#deps.store.readSources(userIds);
    await this.#deps.store.replacePlans(new Map([...sources].map(([userId, s]) => [userId, planReminders(s, after)])));
  }

  /** Settles the users' reminders due in (checked, now], then plans their next ones. */
  async #deliver(userIds: readonly number[], checked: number, now: number): Promise<void> {
    if (userIds.length === 0) return;
    const d = this.#deps;
    const sources = await d.store.readSources(userIds);
    const due = [...sources].map(([userId, s]) => ({ userId, items: dueReminders(s, checked, now) })).filter((u) => u.items.length > 0);
    const settings = due.length === 0 ? new Map<number, NotificationSettings>() : await d.settings(due.map((u) => u.userId));
    const recordedAt = d.clock.now().toISOString();
    const records: DeliveryRecord[] = [];
    const at: number[] = [];
    for (const { userId, items } of due) {
      for (const item of items) {
        const outcome: DeliveryOutcome = item.at < now - d.graceMs ? 'skipped' : settings.get(userId)?.eventReminders === true ? 'sent' : 'off';
        const alert: ReminderAlert = { ...item.alert, userId };
        records.push({
          userId,
          reminderUid: alert.reminderUid,
          occurrenceStart: alert.occurrenceStart,
          dueAt: alert.dueAt,
          outcome,
          recordedAt,
          alert: outcome === 'sent' ? alert : null,
        });
        at.push(item.at);
      }
    }
    const stored = records.length === 0 ? [] : await d.store.recordDeliveries(records);
    const committed = d.clock.now().getTime();
    let skipped = 0;
    records.forEach((record, i) => {
      if (stored[i] !== true) return;
      if (record.outcome === 'skipped') skipped++;
      if (record.outcome !== 'sent' || record.alert === null) return;
      d.observer?.sent?.(Math.max(0, committed - at[i]!));
      d.pushes?.alerted(record.alert);
    });
    if (skipped > 0) d.observer?.skipped?.(skipped);
    await d.store.replacePlans(new Map([...sources].map(([userId, s]) => [userId, planReminders(s, now)])));
  }
}
