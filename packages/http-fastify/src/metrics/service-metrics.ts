import { MAX_PUSH_GROUP, RECORD_TYPES, RETENTION_KINDS, type EncodedPullResponse, type PushResponse, type RecordType, type RetentionObserver } from '@calsync/domain';
import promClient from 'prom-client';

/** Sync counters derived from service responses. */
export interface SyncMetrics {
  /** One unit of work that plans `pushes` pushes of one user together (group commit; 1: a push alone). */
  pushGroup(pushes: number): void;
  /** Counts pushed items by record type and result status, and the conflicts the push created. */
  recordPush(response: PushResponse): void;
  /** Counts pulled rows by record type and cursor resets (by whether a cursor was sent). */
  recordPull(response: Pick<EncodedPullResponse, 'records' | 'cursorReset'>, cursorSent: boolean): void;
}

/** Live-notification gauges and counters (streams on this node, FCM sends and failures). */
export interface NotificationMetrics {
  /** Open notification streams on this node. */
  openStreams(count: number): void;
  /** `count` notifications sent through `channel` (`stream` or `fcm`). */
  sent(channel: 'stream' | 'fcm', count?: number): void;
  /** One FCM message given up on, by reason (`unregistered`, `invalid-token`, `quota`, `unavailable`, …). */
  fcmFailed(reason: string): void;
}

/** The reminder scheduler's metrics. */
export interface ReminderMetrics {
  /** A reminder was sent through `channel` (`stream`: announced to the user's streams; `fcm`: one device message). */
  sent(channel: 'stream' | 'fcm'): void;
  /** How late a sent reminder was, from its due time to its announcement. */
  lateness(ms: number): void;
  /** Reminders skipped after an outage (older than REMINDER_GRACE). */
  skipped(count: number): void;
  /** Whether this node holds the scheduler's lease. */
  leader(held: boolean): void;
  /** Conflict alerts sent through `channel`. */
  conflictAlert(channel: 'stream' | 'fcm'): void;
}

/**
 * The service's own metrics (calsync_*), made before anything that reports to them: the
 * composition root creates them first and hands each part to its reporter (the sync routes, the
 * stream hub, FCM, sign-in, the maintenance job) and to the app, which serves them at /metrics
 * beside fastify-metrics' request histograms, in the same prom-client registry.
 */
export interface ServiceMetrics {
  /** The prom-client module whose default registry holds them (fastify-metrics is given the same). */
  readonly client: typeof promClient;
  readonly sync: SyncMetrics;
  readonly notifications: NotificationMetrics;
  readonly retention: RetentionObserver;
  readonly reminders: ReminderMetrics;
  /** Sign-in codes sent, by country calling code. */
  readonly sms: { sent(callingCode: string): void };
  /** Refresh tokens presented again after rotation. */
  readonly refreshReplays: { inc(): void };
}

/**
 * Creates the calsync_* metrics in prom-client's default registry, after clearing it: one set of
 * metrics per process (tests that build several apps get a fresh set each, as before).
 */
export function createServiceMetrics(): ServiceMetrics {
  const client = promClient;
  client.register.clear();
  const pushed = new client.Counter({ name: 'calsync_sync_push_items_total', help: 'Pushed sync items by record type and result status', labelNames: ['type', 'status'] });
  const conflicts = new client.Counter({ name: 'calsync_sync_conflicts_created_total', help: 'Conflict records created by pushes, by entity type', labelNames: ['entity_type'] });
  const pulled = new client.Counter({ name: 'calsync_sync_pull_rows_total', help: 'Rows returned by pulls, by record type', labelNames: ['type'] });
  const resets = new client.Counter({
    name: 'calsync_sync_cursor_resets_total',
    help: 'Pulls answered with a full snapshot (cursorReset), by whether the client sent a cursor',
    labelNames: ['cursor_sent'],
  });
  const groups = new client.Histogram({
    name: 'calsync_sync_push_group_size',
    help: 'Pushes of one user planned and committed together in one unit of work (group commit); its sum over its count is the pushes a unit',
    buckets: [1, 2, 4, 8, MAX_PUSH_GROUP],
  });
  // Touch the label sets once so the series exist (at 0) before the first sync.
  for (const type of RECORD_TYPES) pulled.inc({ type }, 0);
  resets.inc({ cursor_sent: 'true' }, 0);
  resets.inc({ cursor_sent: 'false' }, 0);

  const streamsOpen = new client.Gauge({ name: 'calsync_notification_streams_open', help: 'Open data-changed notification streams on this node' });
  const notificationsSent = new client.Counter({ name: 'calsync_notifications_sent_total', help: 'Data-changed notifications sent, by channel (stream, fcm)', labelNames: ['channel'] });
  const fcmFailures = new client.Counter({ name: 'calsync_fcm_failures_total', help: 'FCM messages given up on, by reason', labelNames: ['reason'] });
  notificationsSent.inc({ channel: 'stream' }, 0);
  notificationsSent.inc({ channel: 'fcm' }, 0);
  streamsOpen.set(0);

  const removed = new client.Counter({ name: 'calsync_retention_rows_removed_total', help: 'Rows the maintenance job removed, by kind (receipts, tombstones, conflicts, sessions, codes, codeSends, renders)', labelNames: ['kind'] });
  const horizon = new client.Gauge({ name: 'calsync_retention_horizon_timestamp_seconds', help: 'Unix time before which the last maintenance run removed each kind', labelNames: ['kind'] });
  const runs = new client.Counter({ name: 'calsync_maintenance_runs_total', help: 'Maintenance runs by outcome (ran; skipped: another node held the lock; failed)', labelNames: ['outcome'] });
  const lastRun = new client.Gauge({ name: 'calsync_maintenance_last_run_timestamp_seconds', help: 'Unix time of the last maintenance run, by outcome', labelNames: ['outcome'] });
  for (const kind of RETENTION_KINDS) removed.inc({ kind }, 0);
  for (const outcome of ['ran', 'skipped', 'failed']) runs.inc({ outcome }, 0);

  const smsSent = new client.Counter({ name: 'calsync_sms_codes_sent_total', help: 'Sign-in codes sent by SMS, by country calling code (unknown: none assigned)', labelNames: ['calling_code'] });
  const replays = new client.Counter({ name: 'calsync_refresh_token_replays_total', help: 'Refresh tokens presented again after rotation; each ended a device session' });

  const remindersSent = new client.Counter({ name: 'calsync_reminders_sent_total', help: 'Reminders sent, by channel (stream: announced to the user\'s streams once; fcm: one per device message)', labelNames: ['channel'] });
  const reminderLateness = new client.Histogram({
    name: 'calsync_reminder_lateness_seconds',
    help: 'Seconds from a reminder\'s due time to its announcement',
    buckets: [0.25, 0.5, 1, 2, 3, 5, 10, 30, 60, 300],
  });
  const remindersSkipped = new client.Counter({ name: 'calsync_reminders_skipped_total', help: 'Reminders not sent because they fell due longer than REMINDER_GRACE ago (an outage)' });
  const schedulerLeader = new client.Gauge({ name: 'calsync_reminder_scheduler_leader', help: '1 on the node that holds the reminder scheduler\'s lease, else 0' });
  const conflictAlerts = new client.Counter({ name: 'calsync_conflict_alerts_sent_total', help: 'Conflict alerts sent, by channel (stream, fcm)', labelNames: ['channel'] });
  for (const channel of ['stream', 'fcm']) {
    remindersSent.inc({ channel }, 0);
    conflictAlerts.inc({ channel }, 0);
  }
  schedulerLeader.set(0);

  return {
    client,
    reminders: {
      sent: (channel) => remindersSent.inc({ channel }),
      lateness: (ms) => reminderLateness.observe(ms / 1000),
      skipped: (count) => remindersSkipped.inc(count),
      leader: (held) => schedulerLeader.set(held ? 1 : 0),
      conflictAlert: (channel) => conflictAlerts.inc({ channel }),
    },
    sync: {
      pushGroup: (pushes) => groups.observe(pushes),
      recordPush(response) {
        for (const type of RECORD_TYPES) {
          for (const item of response[type as RecordType] ?? []) pushed.inc({ type, status: item.status });
        }
        for (const c of response.conflicts) conflicts.inc({ entity_type: c.entityType });
      },
      recordPull(response, cursorSent) {
        for (const type of RECORD_TYPES) {
          const n = response.records[type as RecordType]?.length ?? 0;
          if (n > 0) pulled.inc({ type }, n);
        }
        if (response.cursorReset) resets.inc({ cursor_sent: String(cursorSent) });
      },
    },
    notifications: {
      openStreams: (count) => streamsOpen.set(count),
      sent: (channel, count = 1) => notificationsSent.inc({ channel }, count),
      fcmFailed: (reason) => fcmFailures.inc({ reason }),
    },
    retention: {
      removed: (kind, rows) => removed.inc({ kind }, rows),
      horizon: (kind, before) => horizon.set({ kind }, before.getTime() / 1000),
      finished: (outcome, at) => {
        runs.inc({ outcome });
        lastRun.set({ outcome }, at.getTime() / 1000);
      },
    },
    sms: { sent: (callingCode) => smsSent.inc({ calling_code: callingCode }) },
    refreshReplays: { inc: () => replays.inc() },
  };
}
