import type { ChangeFeed, ReminderScheduler } from '@calsync/domain';
import type { FastifyBaseLogger } from 'fastify';

/** A running reminder schedule; `stop` ends it, waits for a tick under way and gives the lease up. */
export interface ReminderSchedule {
  stop(): Promise<void>;
}

/**
 * Runs the reminder scheduler's tick every `pollMs` (REMINDER_POLL_MS) on this node, one tick at a
 * time, and tells it of every change the feed reports, so it re-plans the changed user. Every node
 * runs it; the scheduler's lease lets one of them send. A failed tick (a database outage) is logged
 * once until a tick succeeds again; the timer never keeps the process alive.
 */
export function scheduleReminders(scheduler: ReminderScheduler, feed: ChangeFeed, pollMs: number, log: FastifyBaseLogger): ReminderSchedule {
  const unsubscribe = feed.subscribe({
    changed: (change) => scheduler.changed(change.userId),
    sessionEnded: () => {},
    resynced: () => scheduler.resynced(),
  });
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  let busy = false;
  let failing = false;
  let leader = false;
  const tick = (): void => {
    if (stopped || busy) return;
    busy = true;
    running = (async () => {
      try {
        await scheduler.tick();
        if (failing) log.info('reminder scheduler: ticking again');
        failing = false;
        if (scheduler.leader !== leader) {
          leader = scheduler.leader;
          log.info({ leader }, leader ? 'reminder scheduler: this node schedules reminders' : 'reminder scheduler: another node schedules reminders');
        }
      } catch (err) {
        if (!failing) log.warn({ error: err instanceof Error ? err.message : String(err) }, 'reminder scheduler tick failed; retrying every poll interval');
        failing = true;
      } finally {
        busy = false;
      }
    })();
  };
  const timer = setInterval(tick, pollMs);
  timer.unref();
  setTimeout(tick, 0).unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      unsubscribe();
      await running;
      await scheduler.release().catch(() => {});
    },
  };
}
