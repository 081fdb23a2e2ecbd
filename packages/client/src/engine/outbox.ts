import { childLinks, createFields, isDefaultCalendar, parseVersion, RECORD_TYPES, type FieldValue, type RecordType } from '@calsync/domain/rules';
import { recordKey, type OutboxError, type OutboxItem, type StoredRecord, type StoreWrite } from '../store/local-store.js';
import type { WireItemResult } from '../wire.js';
import { META, type LocalState } from './local-state.js';
import { withDescendants } from './references.js';
import { namesRekeyedCalendar } from './rekey.js';

/** Items of one record, in seq order. */
export function itemsOf(state: LocalState, type: RecordType, uid: string): OutboxItem[] {
  return state.outbox.filter((i) => i.type === type && i.uid === uid);
}

/** A new item at the end of the outbox: pending, never sent, no attempt made yet. */
export function queuedItem(state: LocalState, type: RecordType, uid: string, op: OutboxItem['op'], patch: Readonly<Record<string, FieldValue>>, baseVersion: string | null = null): OutboxItem {
  return { seq: state.nextSeq(), type, uid, op, patch: { ...patch }, baseVersion, state: 'pending', attempts: 0, sent: null, waitForPull: false, lastError: null };
}

/** An item that was never sent (or whose send got a definite answer) can take later edits. */
const mergeable = (i: OutboxItem): boolean => i.op === 'upsert' && i.sent === null && i.state !== 'inflight';

/** Thrown for a put on a record that has a delete waiting in the outbox. */
export class RecordDeletedError extends Error {
  constructor(readonly type: RecordType, readonly uid: string) {
    super(`${type} ${uid} was deleted on this device`);
    this.name = 'RecordDeletedError';
  }
}

/**
 * A local create or edit (fields already validated): the record changes at once and the edit is
 * queued. It merges into the record's last item when that one can still change, so one record has
 * at most one pending item besides one whose answer is outstanding (or two: a calendar's create and
 * its promotion, below); a parked item that takes a new edit gets a fresh attempt budget.
 */
export function planPut(state: LocalState, type: RecordType, uid: string, patch: Readonly<Record<string, FieldValue>>): StoreWrite {
  const record = state.records[type].get(uid);
  const items = itemsOf(state, type, uid);
  const last = items.at(-1);
  if (!record && last?.op === 'delete') throw new RecordDeletedError(type, uid);
  const next: StoredRecord = {
    type,
    uid,
    fields: record ? { ...record.fields, ...patch } : createFields(type, patch),
    version: record?.version ?? null,
  };
  const mergedInto = (into: OutboxItem, p: Readonly<Record<string, FieldValue>>): OutboxItem =>
    withBase({ ...into, patch: { ...into.patch, ...p }, state: 'pending', waitForPull: false, ...(into.state === 'failed' ? { attempts: 0, lastError: null } : {}) }, record);
  // Making a calendar the default whose create has not left yet is a promotion, not a create as the
  // default: merged into the create, it would ask the server for the user's existing default (a
  // merge that drops this calendar). So until the create leaves, it takes the calendar's fields and
  // a second item after it takes `isDefault`: the promotion, sent once the create is answered.
  const [create, promotion] = items;
  if (type === 'calendars' && create && mergeable(create) && record?.version === null && !isPromotion(create) && (!promotion || mergeable(promotion))) {
    const { isDefault, ...fields } = patch;
    if (promotion || isDefault === true) {
      const promote = isDefault === undefined ? [] : [promotion ? mergedInto(promotion, { isDefault }) : queuedItem(state, type, uid, 'upsert', { isDefault })];
      return { putRecords: [next], putOutbox: [mergedInto(create, fields), ...promote] };
    }
  }
  return { putRecords: [next], putOutbox: [last && mergeable(last) ? mergedInto(last, patch) : withBase(queuedItem(state, type, uid, 'upsert', patch), record)] };
}

/**
 * `item` with the values its patched fields had before it (see OutboxItem.base): a field's first
 * edit takes the record's value then (the server's at the record's version, or what an earlier
 * item of it, whose answer is outstanding, wrote); later edits keep it. None for a create.
 */
function withBase(item: OutboxItem, record: StoredRecord | undefined): OutboxItem {
  if (record === undefined || record.version === null) return item;
  const base = { ...item.base };
  for (const k of Object.keys(item.patch)) if (!(k in base)) base[k] = record.fields[k] ?? null;
  return { ...item, base };
}

/**
 * A local delete: the record and its local descendants go at once (the server cascades the same
 * way); their edits that never left are dropped; a delete is queued unless the record never
 * reached the server and nothing about it is on its way there.
 */
export function planRemove(state: LocalState, type: RecordType, uid: string): StoreWrite | null {
  const removed = withDescendants(state.records, type, uid);
  if (removed.length === 0) return null;
  const deleteOutbox: number[] = [];
  const waitsFor: number[] = [];
  let serverMayKnow = false;
  for (const r of removed) {
    const isRoot = r.type === type && r.uid === uid;
    for (const item of itemsOf(state, r.type, r.uid)) {
      if (mergeable(item)) deleteOutbox.push(item.seq);
      else if (isRoot) serverMayKnow = true;
      else if (item.op === 'upsert' && item.sent !== null) waitsFor.push(item.seq);
    }
  }
  const root = removed[0]!;
  if (type === 'calendars') for (const item of state.outbox) if (item.uid !== uid && isFrozenPromotion(item)) waitsFor.push(item.seq);
  // A record deleted here before may have been below this one (it left the local records, and its
  // parent link with it, so withDescendants cannot see it): its frozen edits, and what its queued
  // delete waits for, this delete waits for too, or this delete's cascade could meet such an edit on
  // the server. Waiting longer than needed only delays a delete by the pushes that answer those edits.
  for (const queued of state.outbox) {
    if (queued.op !== 'delete' || (queued.type === type && queued.uid === uid)) continue;
    waitsFor.push(...(queued.waitsFor ?? []));
    for (const item of itemsOf(state, queued.type, queued.uid)) if (item.op === 'upsert' && item.sent !== null) waitsFor.push(item.seq);
  }
  const putOutbox: OutboxItem[] = [];
  if (root.version !== null || serverMayKnow) {
    putOutbox.push({ ...queuedItem(state, type, uid, 'delete', {}, root.version), ...(waitsFor.length > 0 ? { waitsFor } : {}) });
  }
  return { deleteRecords: removed.map((r) => ({ type: r.type, uid: r.uid })), deleteOutbox, putOutbox };
}

/**
 * A default change whose answer is outstanding: the server may already have applied it, demoting
 * the other calendars (a delete must then go with the demoted version, learnt by the pull after the
 * answer), or merged a new default into the user's existing one, which the answer names (see planRekey).
 */
function isFrozenPromotion(item: OutboxItem): boolean {
  return item.sent !== null && isPromotion(item);
}

/** Whether items never attempted wait to be pushed (written since the last push; not waiting for a pull). */
export function hasFreshItems(state: LocalState): boolean {
  return state.outbox.some((i) => i.state === 'pending' && i.attempts === 0 && !i.waitForPull);
}

/**
 * The next push batch: per record its first item that is not parked, unless an earlier answer for
 * that record is outstanding or it waits for a pull; at most `maxPerType` items per array, the
 * arrays in push order, deletes before upserts within each.
 */
export function selectBatch(state: LocalState, maxPerType: number): OutboxItem[] {
  const seen = new Set<string>();
  const perType = new Map<RecordType, OutboxItem[]>(RECORD_TYPES.map((t) => [t, []]));
  // A delete waits for the answers of the frozen edits below its record (see OutboxItem.waitsFor);
  // one that got an error is no longer frozen, and one parked no longer waits to go.
  const unanswered = new Set(state.outbox.filter((i) => i.sent !== null && i.state !== 'failed').map((i) => i.seq));
  for (const item of state.outbox) {
    const key = recordKey(item.type, item.uid);
    if (seen.has(key)) continue;
    if (item.state === 'failed') {
      // A record the server does not have yet is made by its first item: while that one is parked,
      // a later item sent alone would be a create of its own (a split promotion, see planPut,
      // would be a create as the default), so the record's later items wait for the retry.
      if (item.op === 'upsert' && (state.records[item.type].get(item.uid)?.version ?? null) === null) seen.add(key);
      continue;
    }
    seen.add(key);
    if (item.state === 'inflight' || item.waitForPull) continue;
    if (item.op === 'delete' && item.waitsFor?.some((seq) => unanswered.has(seq))) continue;
    const list = perType.get(item.type)!;
    if (list.length < maxPerType) list.push(item);
  }
  perType.set('calendars', withOnePromotion(state, perType.get('calendars')!));
  holdBehindParentCreates(state, perType);
  // Deletes first within each array: a default calendar deleted here must be gone before a new
  // default made here arrives, or the server would merge the new one into the one being deleted.
  const deletesFirst = (items: OutboxItem[]): OutboxItem[] => [...items.filter((i) => i.op === 'delete'), ...items.filter((i) => i.op !== 'delete')];
  return RECORD_TYPES.flatMap((t) => deletesFirst(perType.get(t)!));
}

/** Every parent type's reference fields, from the domain's field tables. */
const PARENT_LINKS = RECORD_TYPES.map((parent) => ({ parent, links: childLinks(parent) }));

/**
 * A record goes no earlier than the creates of the records it names: with such a create held back
 * (one promotion a push, a delete waiting for an answer) it would fail as UNKNOWN_REFERENCE and be
 * charged an attempt for every push it waited (seed 673936069: a calendar remade by planRekey is a
 * new default queued behind the others made here, and its event and the event's reminder were
 * parked). Removes from `perType` the upserts that name a record whose create is pending and not in
 * the batch, to a fixed point (what they name may itself be held).
 */
function holdBehindParentCreates(state: LocalState, perType: Map<RecordType, OutboxItem[]>): void {
  const key = (type: RecordType, uid: unknown): string => `${type}\u0000${String(uid)}`;
  const creates = state.outbox.filter((i) => i.op === 'upsert' && i.sent === null && i.state === 'pending' && (state.records[i.type].get(i.uid)?.version ?? null) === null);
  if (creates.length === 0) return;
  // The records each upsert of the batch names, worked out once (the loop below only drops items).
  const names = new Map<OutboxItem, string[]>();
  for (const [type, items] of perType) {
    for (const i of items) {
      if (i.op === 'delete') continue;
      const fields = i.sent?.fields ?? i.patch;
      names.set(i, PARENT_LINKS.flatMap(({ parent, links }) => links.filter((l) => l.type === type && fields[l.field] != null).map((l) => key(parent, fields[l.field]))));
    }
  }
  for (;;) {
    const batch = new Set([...perType.values()].flat().map((i) => key(i.type, i.uid)));
    const held = new Set(creates.map((i) => key(i.type, i.uid)).filter((k) => !batch.has(k)));
    let changed = false;
    for (const [type, items] of perType) {
      const kept = items.filter((i) => !(names.get(i) ?? []).some((k) => held.has(k)));
      if (kept.length !== items.length) {
        perType.set(type, kept);
        changed = true;
      }
    }
    if (!changed) return;
  }
}

/** True for an item that makes a calendar the default (the server then demotes the others). */
export function isPromotion(item: OutboxItem): boolean {
  return item.op === 'upsert' && isDefaultCalendar(item.type, item.sent?.fields ?? item.patch);
}

/**
 * A default change demotes the other default calendars on the server, giving them new versions
 * this device learns only by pull. So a batch carries one promotion at most, and no edit of a
 * calendar that is a default here (it is about to be demoted): those wait for the pull, instead of
 * being pushed with a version the server has just replaced (a conflict with oneself); a frozen one
 * cannot change its version, so it goes first and the promotion waits.
 */
function withOnePromotion(state: LocalState, calendars: OutboxItem[]): OutboxItem[] {
  const promotion = calendars.find(isPromotion);
  if (!promotion) return calendars;
  // A calendar delete still queued outside this batch (behind an earlier item of its record, e.g.
  // a frozen rename) may be of the server's current default: a new default arriving first would
  // be merged into it and then deleted with it. The promotion waits until the delete has gone
  // (a delete of the promoted calendar itself queues behind the promotion, so it does not count,
  // nor does one waiting for this frozen promotion's answer: see planRemove).
  const answerAwaited = (i: OutboxItem): boolean => isFrozenPromotion(promotion) && i.waitsFor?.includes(promotion.seq) === true;
  const waitingDelete = state.outbox.some(
    (i) => i.type === 'calendars' && i.op === 'delete' && i.state !== 'failed' && i.uid !== promotion.uid && !calendars.includes(i) && !answerAwaited(i),
  );
  if (waitingDelete) return calendars.filter((i) => i !== promotion);
  // A frozen edit of such a calendar cannot wait for the pull: its payload and baseVersion are
  // fixed, so after the demotion it is a stale edit (a conflict with oneself) unless its first push
  // was applied. It goes first and the promotion waits for its answer (the round's next push).
  const isLocalDefault = (i: OutboxItem): boolean => isDefaultCalendar('calendars', state.records.calendars.get(i.uid)?.fields ?? {});
  if (calendars.some((i) => i !== promotion && i.op === 'upsert' && i.sent !== null && isLocalDefault(i))) return calendars.filter((i) => i !== promotion);
  return calendars.filter((i) => i === promotion || i.op === 'delete' || !isLocalDefault(i));
}

/** The base version an item is pushed with: the record's current one, else the one last seen. */
export function baseVersionOf(state: LocalState, item: OutboxItem): string | null {
  if (item.op === 'upsert') return state.records[item.type].get(item.uid)?.version ?? item.baseVersion;
  return item.baseVersion;
}

/** Freezes the payload of each item and marks it in flight: what a crash leaves must be re-pushed as is. */
export function planSend(state: LocalState, batch: readonly OutboxItem[]): { write: StoreWrite; sent: OutboxItem[] } {
  const sent = batch.map((item): OutboxItem => ({
    ...item,
    state: 'inflight',
    sent: item.sent ?? { op: item.op, baseVersion: baseVersionOf(state, item), fields: item.op === 'upsert' ? item.patch : {} },
  }));
  return { write: { putOutbox: sent }, sent };
}

/** After a push whose answer is unknown or refused as a whole: back to pending, payload kept frozen. */
export function planUnsent(state: LocalState, batch: readonly OutboxItem[]): StoreWrite {
  const current = new Map(state.outbox.map((i) => [i.seq, i]));
  const putOutbox = batch.flatMap((b) => {
    const item = current.get(b.seq);
    return item && item.state === 'inflight' ? [{ ...item, state: 'pending' as const }] : [];
  });
  return { putOutbox };
}

/** Sets one item aside as failed with `error` (a batch of one the server refuses as a whole). */
export function planPark(state: LocalState, item: OutboxItem, error: OutboxError): StoreWrite {
  const current = state.outbox.find((i) => i.seq === item.seq);
  if (!current) return {};
  return { putOutbox: [{ ...current, state: 'failed', sent: null, attempts: current.attempts + 1, lastError: error }] };
}

/** A re-keyed default calendar found in a push answer. */
export interface Rekey {
  readonly from: string;
  readonly to: string;
}

/**
 * Consumes the answers to one push: a success or conflict removes the item and its version becomes
 * the record's next base; an error counts an attempt, then retries (after the next pull when
 * retryable) or parks the item once `maxAttempts` is reached or the error is not retryable.
 */
export function planResults(
  state: LocalState,
  sent: readonly OutboxItem[],
  results: readonly WireItemResult[],
  maxAttempts: number,
): { write: StoreWrite; rekeys: Rekey[] } {
  const putRecords = new Map<string, StoredRecord>();
  const putOutbox = new Map<number, OutboxItem>();
  const deleteOutbox: number[] = [];
  const rekeys: Rekey[] = [];
  const live = (seq: number): OutboxItem | undefined => putOutbox.get(seq) ?? state.outbox.find((i) => i.seq === seq);
  sent.forEach((item, i) => {
    const result = results[i];
    if (!result) return; // no answer for it: stays in flight, released by the caller
    const later = itemsOf(state, item.type, item.uid).filter((x) => x.seq > item.seq && !deleteOutbox.includes(x.seq));
    if (result.status === 'error') {
      // Failed only because the calendar it names was merged into another in this same answer (a
      // new default, calendars going first in a push): planRekey points it at the merged-into
      // calendar, and it goes again without being charged an attempt.
      const merged = item.op === 'upsert' && result.error.code === 'UNKNOWN_REFERENCE' && namesRekeyedCalendar(item.type, item.sent?.fields ?? item.patch, rekeys);
      const attempts = merged ? item.attempts : item.attempts + 1;
      const record = state.records[item.type].get(item.uid);
      const next = later[0] ? live(later[0].seq) : undefined;
      if (item.op === 'upsert' && next?.op === 'delete') {
        deleteOutbox.push(item.seq); // the user deleted the record since: the failed edit is moot, the delete goes next
        return;
      }
      if (!record && !next && item.op === 'upsert' && result.error.code === 'UNKNOWN_REFERENCE') {
        deleteOutbox.push(item.seq); // its record (or its parent) was deleted here since: nothing left to write
        return;
      }
      const park = !result.error.retryable || attempts >= maxAttempts;
      const failedFields = item.sent?.fields ?? item.patch;
      // Not into the promotion split off a create (see planPut): the create stays on its own.
      const splitPromotion = next !== undefined && isPromotion(next) && !isPromotion(item) && (record?.version ?? null) === null;
      if (next && next.op === 'upsert' && mergeable(next) && !splitPromotion) {
        // A later edit of the same record waits behind it: fold this one into it, so the record
        // still has one pending item and nothing the user wrote is dropped.
        deleteOutbox.push(item.seq);
        putOutbox.set(next.seq, { ...next, patch: { ...failedFields, ...next.patch }, attempts, lastError: result.error, state: park ? 'failed' : 'pending', waitForPull: !park && result.error.retryable });
        return;
      }
      putOutbox.set(item.seq, { ...item, patch: failedFields, sent: null, attempts, lastError: result.error, state: park ? 'failed' : 'pending', waitForPull: !park && result.error.retryable });
      return;
    }
    deleteOutbox.push(item.seq);
    putOutbox.delete(item.seq);
    if (item.type === 'calendars' && result.status === 'created' && result.uid !== item.uid) {
      rekeys.push({ from: item.uid, to: result.uid });
      return;
    }
    const version = result.version;
    if (version === null) return;
    let record = putRecords.get(recordKey(item.type, item.uid)) ?? state.records[item.type].get(item.uid);
    // An answer older than the local copy (a re-push answered from its receipt after a pull
    // already brought a later version, e.g. a demotion by another device's default change) says
    // nothing new: the later version stands, or the record would stay behind the server for good.
    // So do its fields: the pull laid this item's frozen payload over a version that already holds
    // it, or holds what was written after it (another device's edit that won; for a base-null
    // upsert answered `created`, the server's copy it kept): the pulled values come back, under
    // the edits still queued here, or the device would keep its own fields under the server's version.
    const pulled = record?.version ?? null;
    const notNewer = pulled !== null && parseVersion(pulled)! >= parseVersion(version)!;
    const under = item.op === 'upsert' ? live(item.seq)?.pulledUnder : undefined;
    if (record && notNewer && under && under.version === pulled) {
      const fields = { ...record.fields, ...under.fields };
      for (const l of later) Object.assign(fields, live(l.seq)?.patch ?? l.patch);
      record = { ...record, fields };
      putRecords.set(recordKey(item.type, item.uid), record);
    }
    if (notNewer && pulled !== version) return;
    if (record && item.op === 'upsert') putRecords.set(recordKey(item.type, item.uid), { ...record, version });
    for (const l of later) {
      const current = live(l.seq);
      if (current) putOutbox.set(l.seq, { ...current, baseVersion: version });
    }
  });
  const gone = new Set(deleteOutbox);
  // An answered default change demoted other calendars on the server, at versions this device
  // learns only by pull: remember it until the next complete pull (see runRound, planPullPage).
  const promoted = sent.some((item, i) => isPromotion(item) && results[i] !== undefined && results[i]!.status !== 'error');
  return {
    write: {
      putRecords: [...putRecords.values()],
      deleteOutbox,
      putOutbox: [...putOutbox.values()].filter((i) => !gone.has(i.seq)),
      ...(promoted ? { putMeta: { [META.demotionsUnpulled]: true } } : {}),
    },
    rekeys,
  };
}

/** Start-up recovery: items stuck in flight return to pending (payload kept); parked ones get a fresh budget. */
export function planRecovery(state: LocalState): StoreWrite {
  const putOutbox = state.outbox.flatMap((i): OutboxItem[] => {
    if (i.state === 'inflight') return [{ ...i, state: 'pending' }];
    if (i.state === 'failed') return [{ ...i, state: 'pending', attempts: 0, waitForPull: false }];
    return [];
  });
  return { putOutbox };
}

/** Parked items (of one record when `uid` is given) back to pending with a fresh attempt budget. */
export function planRetry(state: LocalState, uid?: string): StoreWrite {
  const putOutbox = state.outbox
    .filter((i) => i.state === 'failed' && (uid === undefined || i.uid === uid))
    .map((i): OutboxItem => ({ ...i, state: 'pending', attempts: 0, waitForPull: false, lastError: null }));
  return { putOutbox };
}

/** After a complete pull: items that waited for one may be pushed again. */
export function planPulled(state: LocalState): StoreWrite {
  return { putOutbox: state.outbox.filter((i) => i.waitForPull).map((i) => ({ ...i, waitForPull: false })) };
}
