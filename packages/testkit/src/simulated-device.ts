import {
  FIELD_TABLES,
  RECORD_TYPES,
  type ConflictDto,
  type FieldValue,
  type ItemResult,
  type PushChangeset,
  type PushItem,
  type RecordType,
  type SyncApi,
} from '@calsync/domain';

/** A record as a device holds it: its fields and the last version it saw (null: never synced). */
export interface LocalRecord {
  readonly fields: Readonly<Record<string, FieldValue>>;
  readonly version: string | null;
}

/** A pending local mutation; one per record, later edits merged into it. */
export interface OutboxEntry {
  readonly type: RecordType;
  uid: string;
  op: 'upsert' | 'delete';
  patch: Record<string, FieldValue>;
  /** For deletes: the version the device last saw (the record itself is gone locally). */
  deleteBase: string | null;
  attempts: number;
}

/** A write the server acknowledged, as the device pushed it and the result it got. */
export interface AcknowledgedWrite {
  readonly type: RecordType;
  readonly item: PushItem;
  readonly result: ItemResult;
}

/** Tunables of the simulated client (docs/protocol.md). */
export interface SimulatedDeviceOptions {
  /** Attempts before a failing item is parked (5). */
  readonly maxAttempts?: number;
  /** Pull page size (500). */
  readonly pageSize?: number;
}

const REF_FIELDS = RECORD_TYPES.flatMap((type) =>
  FIELD_TABLES[type].filter((f) => f.kind === 'ref').map((f) => ({ type, field: f.name, ref: f.ref! })),
);

/**
 * A device following the client behaviour of docs/protocol.md: local records by
 * uid, an outbox, bootstrap pull before the first push, push then pull, returned versions kept as
 * the next baseVersion, retries bounded then parked, a merged default calendar re-keyed (with every
 * local reference to it), tombstones removed, conflict results consumed. It talks to any `SyncApi`,
 * so the same client can drive the service directly or over HTTP.
 */
export class SimulatedDevice {
  readonly records: Record<RecordType, Map<string, LocalRecord>> = {
    calendars: new Map(), events: new Map(), tasks: new Map(), reminders: new Map(),
  };
  readonly outbox: OutboxEntry[] = [];
  readonly parked: OutboxEntry[] = [];
  readonly conflicts: ConflictDto[] = [];
  readonly acknowledged: AcknowledgedWrite[] = [];
  cursor: string | undefined;
  readonly #api: SyncApi;
  readonly #userId: number;
  readonly #maxAttempts: number;
  readonly #pageSize: number;

  constructor(api: SyncApi, userId: number, options: SimulatedDeviceOptions = {}) {
    this.#api = api;
    this.#userId = userId;
    this.#maxAttempts = options.maxAttempts ?? 5;
    this.#pageSize = options.pageSize ?? 500;
  }

  /** Live local records of a type, in uid order. */
  list(type: RecordType): [string, LocalRecord][] {
    return [...this.records[type].entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  }

  /** A local create or edit: applied locally at once and queued for push. */
  upsert(type: RecordType, uid: string, patch: Record<string, FieldValue>): void {
    const local = this.records[type].get(uid);
    this.records[type].set(uid, { fields: { ...(local?.fields ?? {}), ...patch }, version: local?.version ?? null });
    // A calendar made default is not demoted locally: the server demotes the others (or merges a
    // new default into the existing one), and pull brings the outcome. An optimistic local demotion
    // could never be undone if the promotion were later dropped.
    const entry = this.#entry(type, uid);
    if (entry) {
      if (entry.op === 'delete') return;
      Object.assign(entry.patch, patch);
    } else {
      this.outbox.push({ type, uid, op: 'upsert', patch: { ...patch }, deleteBase: null, attempts: 0 });
    }
  }

  /** A local delete: the record and its local descendants go at once; the server cascades itself. */
  delete(type: RecordType, uid: string): void {
    const local = this.records[type].get(uid);
    if (!local) return;
    this.#removeLocally(type, uid);
    this.#dropPending(type, uid);
    if (local.version === null) return; // never reached the server: nothing to push
    this.outbox.push({ type, uid, op: 'delete', patch: {}, deleteBase: local.version, attempts: 0 });
  }

  /** One sync run: bootstrap pull when there is no cursor, then push, then pull. */
  async sync(): Promise<void> {
    if (this.cursor === undefined) await this.pull();
    await this.push();
    await this.pull();
  }

  /** Pushes the outbox and consumes the results. */
  async push(): Promise<void> {
    const batch = this.outbox.filter(() => true);
    if (batch.length === 0) return;
    const changeset: Record<RecordType, PushItem[]> = { calendars: [], events: [], tasks: [], reminders: [] };
    const entries: Record<RecordType, OutboxEntry[]> = { calendars: [], events: [], tasks: [], reminders: [] };
    for (const entry of batch) {
      const baseVersion = entry.op === 'delete' ? entry.deleteBase : (this.records[entry.type].get(entry.uid)?.version ?? null);
      changeset[entry.type].push({ uid: entry.uid, op: entry.op, baseVersion, fields: { ...entry.patch } });
      entries[entry.type].push(entry);
    }
    const response = await this.#api.push(this.#userId, changeset as PushChangeset);
    this.conflicts.push(...response.conflicts);
    for (const type of RECORD_TYPES) {
      response[type].forEach((result, i) => this.#consume(type, entries[type][i]!, changeset[type][i]!, result));
    }
  }

  #consume(type: RecordType, entry: OutboxEntry, item: PushItem, result: ItemResult): void {
    if (result.status === 'error') {
      entry.attempts += 1;
      if (entry.attempts >= this.#maxAttempts) {
        this.#dropEntry(entry);
        this.parked.push(entry);
      }
      return;
    }
    this.#dropEntry(entry);
    this.acknowledged.push({ type, item, result });
    if (type === 'calendars' && result.status === 'created' && result.uid !== entry.uid) {
      this.#rekeyCalendar(entry.uid, result.uid, result.version);
      return;
    }
    const local = this.records[type].get(entry.uid);
    if (local && result.version !== null) this.records[type].set(entry.uid, { ...local, version: result.version });
  }

  /** Pulls every page, applying records as they come; the cursor is kept only after the last page. */
  async pull(): Promise<void> {
    let cursor = this.cursor;
    for (;;) {
      const page = await this.#api.pull(this.#userId, { cursor, limit: this.#pageSize });
      for (const type of RECORD_TYPES) {
        for (const record of page[type]) {
          const uid = record.uid;
          if (record.deleted != null) {
            this.#removeLocally(type, uid);
            this.#dropPending(type, uid);
            continue;
          }
          const fields: Record<string, FieldValue> = {};
          for (const spec of FIELD_TABLES[type]) fields[spec.name] = record[spec.name] ?? null;
          const pending = this.#entry(type, uid);
          this.records[type].set(uid, { fields: { ...fields, ...(pending?.op === 'upsert' ? pending.patch : {}) }, version: record.version });
        }
      }
      cursor = page.nextCursor;
      if (!page.hasMore) break;
    }
    this.cursor = cursor;
  }

  #entry(type: RecordType, uid: string): OutboxEntry | undefined {
    return this.outbox.find((e) => e.type === type && e.uid === uid);
  }

  #dropEntry(entry: OutboxEntry): void {
    const i = this.outbox.indexOf(entry);
    if (i >= 0) this.outbox.splice(i, 1);
  }

  #dropPending(type: RecordType, uid: string): void {
    for (const e of this.outbox.filter((x) => x.type === type && x.uid === uid && x.op === 'upsert')) this.#dropEntry(e);
  }

  /** Removes a record and, like the server's cascade, its local descendants and their pending edits. */
  #removeLocally(type: RecordType, uid: string): void {
    this.records[type].delete(uid);
    for (const link of REF_FIELDS.filter((l) => l.ref === type)) {
      for (const [childUid, child] of [...this.records[link.type]]) {
        if (child.fields[link.field] !== uid) continue;
        this.#removeLocally(link.type, childUid);
        this.#dropPending(link.type, childUid);
      }
    }
  }

  /** A local default calendar merged into the server's: move it, and every local reference, to `to`. */
  #rekeyCalendar(from: string, to: string, version: string | null): void {
    const local = this.records.calendars.get(from);
    this.records.calendars.delete(from);
    // The server reported `to` as the user's default; its other fields come by pull, or are already here.
    const existing = this.records.calendars.get(to);
    if (existing) this.records.calendars.set(to, { ...existing, fields: { ...existing.fields, isDefault: true } });
    else if (local) this.records.calendars.set(to, { fields: local.fields, version });
    for (const link of REF_FIELDS.filter((l) => l.ref === 'calendars')) {
      for (const [uid, rec] of this.records[link.type]) {
        if (rec.fields[link.field] === from) this.records[link.type].set(uid, { ...rec, fields: { ...rec.fields, [link.field]: to } });
      }
    }
    for (const entry of this.outbox) {
      for (const link of REF_FIELDS.filter((l) => l.ref === 'calendars' && l.type === entry.type)) {
        if (entry.patch[link.field] === from) entry.patch[link.field] = to;
      }
    }
  }
}
