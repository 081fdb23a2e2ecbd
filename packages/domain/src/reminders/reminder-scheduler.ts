import type { AlertNotifier, ReminderAlert } from '../ports/change-feed.js';
import type { Clock } from '../ports/clock.js';
import type { DeliveryOutcome, ReminderStore } from '../ports/reminder-store.js';
import type { SchedulerLease } from '../ports/scheduler-lease.js';
import type { NotificationSettings } from '../ports/user-store.js';
import { dueReminders, planReminders } from './reminder-due.js';

/** The lease the reminder scheduler runs under. */
export const REMINDER_LEASE = 'reminders';

/** Users re-planned per tick while a full re-plan (after taking the lease, or a resync) walks them. */
const SWEEP_BATCH = 200;
/** Users with due plans handled per tick; more wait for the next tick (the checked-through instant then stays). */
const DUE_BATCH = 500;
/**
 * Most time (ms) one tick spends re-planning changed users before it delivers what fell due. Under
 * a heavy write load every user is changed at every tick; re-planning them all first made due
 * reminders wait behind the re-plans (15 s late at 100 busy devices). The users left over stay
 * changed for the next tick, and the checked-through instant does not move past a tick that left
 * any, so a reminder they hold that falls due meanwhile is still found.
 */
const REPLAN_BUDGET_MS = 300;

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
  /** The user's notification switches (null: the user is gone). */
  readonly settings: (userId: number) => Promise<NotificationSettings | null>;
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

    for (const userId of [...this.#dirty]) {
      if (d.clock.now().getTime() - now > REPLAN_BUDGET_MS) break;
      this.#dirty.delete(userId);
      await this.#replan(userId, checked);
    }
    const replanned = this.#dirty.size === 0;
    if (this.#sweepAfter !== null) {
      const users = await d.store.usersWithReminders(this.#sweepAfter, SWEEP_BATCH);
      for (const userId of users) await this.#replan(userId, checked);
      this.#sweepAfter = users.length < SWEEP_BATCH ? null : users[users.length - 1]!;
    }

    const due = await d.store.usersDueBy(new Date(now).toISOString(), DUE_BATCH);
    for (const userId of due) await this.#deliver(userId, checked, now);
    if (due.length < DUE_BATCH && this.#sweepAfter === null && replanned) {
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

  async #replan(userId: number, after: number): Promise<void> {
    const sources = await this.#deps.store.readSources(userId);
    await this.#deps.store.replacePlan(userId, planReminders(sources, after));
  }

  /** Settles the user's reminders due in (checked, now], then plans the next ones. */
  async #deliver(userId: number, checked: number, now: number): Promise<void> {
    const d = this.#deps;
    const sources = await d.store.readSources(userId);
    const due = dueReminders(sources, checked, now);
    if (due.length > 0) {
      const settings = await d.settings(userId);
      let skipped = 0;
      for (const item of due) {
        const outcome: DeliveryOutcome = item.at < now - d.graceMs ? 'skipped' : settings?.eventReminders === true ? 'sent' : 'off';
        const alert: ReminderAlert = { ...item.alert, userId };
        const recorded = await d.store.recordDelivery({
          userId,
          reminderUid: alert.reminderUid,
          occurrenceStart: alert.occurrenceStart,
          dueAt: alert.dueAt,
          outcome,
          recordedAt: d.clock.now().toISOString(),
          alert: outcome === 'sent' ? alert : null,
        });
        if (!recorded) continue;
        if (outcome === 'skipped') skipped++;
        if (outcome !== 'sent') continue;
        d.observer?.sent?.(Math.max(0, d.clock.now().getTime() - item.at));
        d.pushes?.alerted(alert);
      }
      if (skipped > 0) d.observer?.skipped?.(skipped);
    }
    await d.store.replacePlan(userId, planReminders(sources, now));
  }
}
