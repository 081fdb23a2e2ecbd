import { fieldsOfWireRecord, RECORD_TYPES, type FieldValue, type RecordType } from '@calsync/domain/rules';
import { recordKey, type OutboxItem, type StoredRecord, type StoreWrite } from '../store/local-store.js';
import type { WirePullResponse } from '../wire.js';
import { META, type LocalState } from './local-state.js';
import { itemsOf } from './outbox.js';
import { underQueuedDelete, withDescendants } from './references.js';

/**
 * Applies one pull page to the local state. A live record replaces the local copy, with the
 * device's own unsent edits laid over it (they win locally until their push answers); a record
 * with a delete queued here stays gone, and so does one below it (a subtask of a task deleted here:
 * the local delete took it, and the server's cascade will once the delete arrives). A tombstone removes the record and its local descendants;
 * an edit queued for a record the server knew is kept, so its push records a conflict that keeps
 * the edit (nothing written is lost silently); a create that never reached the server, under a
 * deleted parent, leaves the view with its parent but is parked as failed in the outbox, naming
 * what it was, so the user hears of it and its fields stay on the device (`orphaned`).
 */
export function planPullPage(state: LocalState, page: WirePullResponse): StoreWrite {
  const putRecords = new Map<string, StoredRecord>();
  const deleted = new Map<string, { type: StoredRecord['type']; uid: string }>();
  const putOutbox = new Map<number, OutboxItem>();
  const queuedDeletes = new Set(state.outbox.filter((i) => i.op === 'delete').map((i) => recordKey(i.type, i.uid)));
  const deleteQueued = (type: RecordType, uid: string): boolean => queuedDeletes.has(recordKey(type, uid));
  // A parent no longer here (the local delete took it) is looked up in the page itself, indexed
  // by uid the first time a type is asked.
  const pageIndex = new Map<RecordType, Map<string, WirePullResponse[RecordType][number]>>();
  const pulledFields = (type: RecordType, uid: string): Readonly<Record<string, unknown>> | undefined => {
    const local = state.records[type].get(uid);
    if (local !== undefined) return local.fields;
    let index = pageIndex.get(type);
    if (index === undefined) pageIndex.set(type, (index = new Map(page[type].map((r) => [r.uid, r]))));
    const wire = index.get(uid);
    return wire === undefined || wire.deleted != null ? undefined : fieldsOfWireRecord(type, wire);
  };
  for (const type of RECORD_TYPES) {
    for (const wire of page[type]) {
      const uid = wire.uid;
      const items = itemsOf(state, type, uid);
      if (wire.deleted != null) {
        const removed = withDescendants(state.records, type, uid);
        if (removed.length === 0) deleted.set(recordKey(type, uid), { type, uid });
        for (const r of removed) {
          deleted.set(recordKey(r.type, r.uid), { type: r.type, uid: r.uid });
          putRecords.delete(recordKey(r.type, r.uid));
          for (const item of itemsOf(state, r.type, r.uid)) {
            if (item.op !== 'upsert') continue;
            if (r.version === null && item.sent === null && item.state !== 'inflight') putOutbox.set(item.seq, orphaned(item, type, r.type));
            else putOutbox.set(item.seq, { ...(putOutbox.get(item.seq) ?? item), baseVersion: r.version ?? item.baseVersion });
          }
        }
        continue;
      }
      if (items.some((i) => i.op === 'delete')) {
        // The calendar was deleted here after this device's own default change demoted it on the
        // server: the delete was meant for that calendar, so it goes out with the demoted version.
        if (type === 'calendars' && state.meta.get(META.demotionsUnpulled) === true) {
          for (const item of items) if (item.op === 'delete' && item.sent === null) putOutbox.set(item.seq, { ...item, baseVersion: wire.version });
        }
        continue;
      }
      const fields: Record<string, FieldValue> = { ...fieldsOfWireRecord(type, wire) };
      if (queuedDeletes.size > 0 && underQueuedDelete(type, fields, deleteQueued, pulledFields)) continue;
      for (const item of items) {
        // A frozen payload may already be in this version (its answer was lost): keep what it
        // hides, so an answer from its receipt can bring the server's values back (planResults).
        if (item.op === 'upsert' && item.sent !== null) {
          const under = Object.fromEntries(Object.keys(item.patch).map((k) => [k, fields[k] ?? null]));
          putOutbox.set(item.seq, { ...(putOutbox.get(item.seq) ?? item), pulledUnder: { version: wire.version, fields: under } });
        } else if (item.op === 'upsert') {
          // It will go out against this version: its base is what the version holds (under the
          // items before it, whose answers are outstanding).
          const base = Object.fromEntries(Object.keys(item.patch).map((k) => [k, fields[k] ?? null]));
          putOutbox.set(item.seq, { ...(putOutbox.get(item.seq) ?? item), base });
        }
        Object.assign(fields, item.patch);
      }
      deleted.delete(recordKey(type, uid));
      putRecords.set(recordKey(type, uid), { type, uid, fields, version: wire.version });
    }
  }
  return {
    deleteRecords: [...deleted.values()],
    putRecords: [...putRecords.values()],
    putOutbox: [...putOutbox.values()],
  };
}

/** What a record is called, and what its parent is, in a failed item's message. */
const NOUN: Readonly<Record<RecordType, string>> = { calendars: 'calendar', events: 'event', tasks: 'task', reminders: 'reminder' };
const PARENT_NOUN: Readonly<Record<RecordType, string>> = { ...NOUN, tasks: 'parent task' };

/**
 * A create that never reached the server, whose parent (of type `parentType`) another device
 * deleted: the server would refuse it (UNKNOWN_REFERENCE) however often it went, so it is parked at
 * once with a message that says what it was and why, instead of being dropped unseen.
 */
function orphaned(item: OutboxItem, parentType: RecordType, type: RecordType): OutboxItem {
  const name = [item.patch.title, item.patch.name].find((v): v is string => typeof v === 'string');
  const what = `${NOUN[type]}${name === undefined ? '' : ` "${name}"`}`;
  const message = `the ${what} was made here while its ${PARENT_NOUN[parentType]} was deleted on another device, so the server cannot take it; it is kept on this device only`;
  return { ...item, state: 'failed', waitForPull: false, attempts: item.attempts + 1, lastError: { code: 'UNKNOWN_REFERENCE', message, retryable: false } };
}

/**
 * The end of a full snapshot (a pull that began with `cursorReset`): a record the server knew
 * (it has a version) that the snapshot did not name is gone on the server, its tombstone past the
 * server's retention, so it goes here too. A record with queued changes stays: its push decides.
 */
export function planSnapshotEnd(state: LocalState, named: ReadonlySet<string>): StoreWrite {
  const deleteRecords: { type: StoredRecord['type']; uid: string }[] = [];
  for (const type of RECORD_TYPES) {
    for (const record of state.records[type].values()) {
      if (record.version === null || named.has(recordKey(type, record.uid)) || itemsOf(state, type, record.uid).length > 0) continue;
      deleteRecords.push({ type, uid: record.uid });
    }
  }
  return { deleteRecords };
}
