import type { DeliveryRecord, PlannedReminder, RecordRow, ReminderSources, ReminderStore } from '@calsync/domain';
import type { InMemorySyncStore } from '../in-memory-sync-store.js';

const deliveryKey = (r: Pick<DeliveryRecord, 'userId' | 'reminderUid' | 'occurrenceStart'>): string => `${r.userId}\u0000${r.reminderUid}\u0000${r.occurrenceStart}`;

/**
 * `ReminderStore` in memory, reading the records of an `InMemorySyncStore` and announcing sent
 * reminders on its change feed. Delivery records are unique per (user, reminder, occurrence) as
 * the SQL primary key makes them.
 */
export class InMemoryReminderStore implements ReminderStore {
  readonly #plans = new Map<number, Map<string, string>>();
  /** Delivery records by key (inspect in tests). */
  readonly deliveries = new Map<string, DeliveryRecord>();

  constructor(private readonly sync: InMemorySyncStore) {}

  async readSources(userIds: readonly number[]): Promise<ReadonlyMap<number, ReminderSources>> {
    return new Map(userIds.map((userId) => [userId, this.#sourcesOf(userId)]));
  }

  #sourcesOf(userId: number): ReminderSources {
    const live = (type: 'calendars' | 'events' | 'tasks' | 'reminders'): RecordRow[] => this.sync.snapshotRows(userId, type).filter((r) => r.deleted === null);
    const reminders = live('reminders');
    const eventUids = new Set(reminders.map((r) => r.fields.eventUid).filter((u): u is string => typeof u === 'string'));
    const taskUids = new Set(reminders.map((r) => r.fields.taskUid).filter((u): u is string => typeof u === 'string'));
    const events = live('events').filter((e) => eventUids.has(e.uid) || (typeof e.fields.recurringEventUid === 'string' && eventUids.has(e.fields.recurringEventUid)));
    return {
      reminders: reminders.map((r) => ({ uid: r.uid, fields: r.fields })),
      events: events.map((e) => ({ uid: e.uid, fields: e.fields })),
      tasks: live('tasks').filter((t) => taskUids.has(t.uid)).map((t) => ({ uid: t.uid, fields: t.fields })),
      calendarZones: new Map(live('calendars').map((c) => [c.uid, typeof c.fields.timezone === 'string' ? c.fields.timezone : null])),
    };
  }

  async replacePlans(plans: ReadonlyMap<number, readonly PlannedReminder[]>): Promise<void> {
    for (const [userId, mine] of plans) {
      if (mine.length === 0) this.#plans.delete(userId);
      else this.#plans.set(userId, new Map(mine.map((p) => [p.reminderUid, new Date(p.dueAt).toISOString()])));
    }
  }

  async usersDueBy(until: string, limit: number): Promise<number[]> {
    const bound = new Date(until).toISOString();
    return [...this.#plans]
      .map(([userId, plans]) => ({ userId, first: [...plans.values()].sort()[0]! }))
      .filter((u) => u.first <= bound)
      .sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : a.userId - b.userId))
      .slice(0, limit)
      .map((u) => u.userId);
  }

  async usersWithReminders(afterUserId: number, limit: number): Promise<number[]> {
    return this.sync
      .userIds()
      .filter((id) => id > afterUserId && this.sync.snapshotRows(id, 'reminders').some((r) => r.deleted === null))
      .slice(0, limit);
  }

  async recordDeliveries(records: readonly DeliveryRecord[]): Promise<boolean[]> {
    const stored = records.map((record) => {
      const key = deliveryKey(record);
      if (this.deliveries.has(key)) return false;
      this.deliveries.set(key, record);
      return true;
    });
    // Announced once all are stored, as the SQL adapters announce at COMMIT.
    records.forEach((record, i) => {
      if (stored[i] && record.outcome === 'sent' && record.alert !== null) this.sync.changes.publishAlert(record.alert);
    });
    return stored;
  }

  async pruneDeliveries(before: string, limit: number): Promise<number> {
    const bound = Date.parse(before);
    let removed = 0;
    for (const [key, d] of this.deliveries) {
      if (removed >= limit) break;
      if (Date.parse(d.dueAt) < bound) {
        this.deliveries.delete(key);
        removed++;
      }
    }
    return removed;
  }

  /** The plan of one user (reminder uid → ISO due time), for assertions. */
  planOf(userId: number): ReadonlyMap<string, string> {
    return this.#plans.get(userId) ?? new Map();
  }
}
