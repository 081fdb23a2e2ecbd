import { DomainError, ErrorCode, type RetentionJob } from '@calsync/domain';
import type { FastifyBaseLogger } from 'fastify';

/** A running maintenance schedule; `stop` clears it and waits for a run under way. */
export interface MaintenanceSchedule {
  stop(): Promise<void>;
}

/**
 * Runs the retention job at start and then every `intervalMs` (MAINTENANCE_INTERVAL), one run at a
 * time on this node (the job's lock keeps other nodes out). A failed run is logged and retried at
 * the next interval; the timer never keeps the process alive.
 */
export function scheduleMaintenance(job: RetentionJob, intervalMs: number, log: FastifyBaseLogger): MaintenanceSchedule {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  let busy = false;
  const runOnce = (): void => {
    // A run longer than the interval is not overlapped: ticks during it are skipped.
    if (stopped || busy) return;
    busy = true;
    running = (async () => {
      const started = Date.now();
      try {
        const report = await job.runOnce();
        if (report === null) log.debug('maintenance: another node is running it');
        else log.info({ removed: report, ms: Date.now() - started }, 'maintenance: removed what outlived its retention');
      } catch (err) {
        // A database outage is the database component's to report (once when it goes, once when it is back);
        // here it is only why this run is skipped. Anything else is an error of the job.
        if (err instanceof DomainError && err.code === ErrorCode.DATABASE_UNAVAILABLE) log.warn({ code: err.code }, 'maintenance run skipped: the database is unavailable; retrying at the next interval');
        else log.error({ err }, 'maintenance run failed; retrying at the next interval');
      } finally {
        busy = false;
      }
    })();
  };
  const first = setTimeout(runOnce, 0);
  const timer = setInterval(runOnce, intervalMs);
  first.unref();
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
