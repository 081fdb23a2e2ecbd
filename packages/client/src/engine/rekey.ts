import type { OutboxItem, StoredRecord, StoreWrite } from '../store/local-store.js';
import type { LocalState } from './local-state.js';
import { queuedItem, type Rekey } from './outbox.js';
import { childLinks } from '@calsync/domain/rules';

/** The reference fields that point at calendars, from the domain's field tables. */
const CALENDAR_LINKS = childLinks('calendars');

/** True when `fields` of a record of `type` name a calendar that one of `rekeys` moves away (its uid was merged into another). */
export function namesRekeyedCalendar(type: string, fields: Readonly<Record<string, unknown>>, rekeys: readonly Rekey[]): boolean {
  return CALENDAR_LINKS.some((link) => link.type === type && rekeys.some((r) => r.from === fields[link.field]));
}

/**
 * A local default calendar that the server merged into the user's existing default (the push
 * answered with another uid): the local calendar becomes that one, and every local record and
 * outbox item that pointed at the old uid points at the new one (a queued delete of the merged
 * calendar is dropped: the existing default is another calendar to the user). Items it touched
 * may be pushed again at once: the reference they failed on now exists. When this device holds no
 * copy of the existing default, its own calendar goes and the round's pull brings that one, if it
 * is still live.
 *
 * When this device deleted that existing default meanwhile (the merge's answer came late, after a
 * lost answer or a crash; the delete waited for it, see planRemove), the two are different
 * calendars to the user, who deleted one and kept the other: the delete goes on, and the kept
 * calendar is made anew on the server under a fresh uid (`freshUid`), with its whole local fields,
 * everything pointing at it following it. Its old uid cannot be used again: a re-push of the same
 * item would be answered from the merge's receipt.
 */
export function planRekey(state: LocalState, { from, to }: Rekey, freshUid: () => string): StoreWrite {
  const putRecords: StoredRecord[] = [];
  const local = state.records.calendars.get(from);
  const existing = state.records.calendars.get(to);
  const deletedHere = state.outbox.some((i) => i.type === 'calendars' && i.uid === to && i.op === 'delete');
  const remade = local !== undefined && deletedHere;
  const target = remade ? freshUid() : to;
  const putOutbox: OutboxItem[] = [];
  const deleteOutbox: number[] = [];
  if (remade) {
    putRecords.push({ type: 'calendars', uid: target, fields: local.fields, version: null });
    putOutbox.push(queuedItem(state, 'calendars', target, 'upsert', local.fields));
  } else if (existing) {
    putRecords.push({ ...existing, fields: { ...existing.fields, isDefault: true } });
  }
  // No copy of `to` is made from the answer: it may come from the merge's receipt (after a lost
  // answer or a crash) when this device already pulled `to`'s deletion by another device, and a
  // copy made then would never be corrected by a later pull.
  for (const link of CALENDAR_LINKS) {
    for (const r of state.records[link.type].values()) {
      if (r.fields[link.field] === from) putRecords.push({ ...r, fields: { ...r.fields, [link.field]: target } });
    }
  }
  for (const item of state.outbox) {
    if (item.type === 'calendars' && item.uid === from && (item.op === 'delete' || remade)) {
      // The user deleted the calendar they made, not the existing default it merged into (which
      // they see as a calendar of its own): nothing to delete on the server. A remade calendar's
      // edits are in its create.
      deleteOutbox.push(item.seq);
      continue;
    }
    let next = item;
    if (item.type === 'calendars' && item.uid === from) next = { ...next, uid: target };
    for (const link of CALENDAR_LINKS) {
      if (link.type !== item.type) continue;
      if (next.patch[link.field] === from) next = { ...next, patch: { ...next.patch, [link.field]: target }, waitForPull: false };
      if (next.sent && next.sent.fields[link.field] === from) {
        // A push naming `from` cannot have been applied (the server never had it): safe to change.
        next = { ...next, sent: { ...next.sent, fields: { ...next.sent.fields, [link.field]: target } }, waitForPull: false };
      }
    }
    if (next !== item) putOutbox.push(next);
  }
  return { deleteRecords: local ? [{ type: 'calendars', uid: from }] : [], putRecords, putOutbox, deleteOutbox };
}
