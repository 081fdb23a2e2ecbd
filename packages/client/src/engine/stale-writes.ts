import { fieldsOfWireRecord, settleStaleWrite } from '@calsync/domain/rules';
import { ApiError } from '../http/api-error.js';
import type { CalsyncApi } from '../http/api.js';
import type { OutboxItem, StoreWrite } from '../store/local-store.js';
import type { WireConflict, WireItemResult } from '../wire.js';
import { settledConflicts, sideOfAnswer } from './conflict-feed.js';
import { META, type LocalState } from './local-state.js';
import { planPut } from './outbox.js';

/**
 * What one push answer's conflicts need from this device. The server records every stale upsert
 * as a conflict, the other device's version kept as the loser; most lose nothing: the two devices
 * changed different fields (one cancelled an occurrence while the other renamed the series), or
 * both cancelled occurrences. For each conflict this device's item made as the current side,
 * `settleStaleWrite` compares the loser with the fields sent (as this device holds them now: a later
 * edit of one, still queued, counts) and their values before: when nothing
 * was lost the conflict is marked settled; when both devices changed `exdate`, the merged list is
 * queued as an edit (a clean push, later in the same round) and the conflict is marked settled;
 * when a field both set differs, the conflict stays for a person to choose. The settled ids join
 * META.settledConflicts, which the listings leave out until `dismissSettled` has dismissed them.
 * One write per merge (of different records: a push holds one item per record), then the list.
 */
export function planSettled(state: LocalState, sent: readonly OutboxItem[], results: readonly WireItemResult[], conflicts: readonly WireConflict[]): StoreWrite[] {
  const writes: StoreWrite[] = [];
  const settled: number[] = [];
  sent.forEach((item, i) => {
    const result = results[i];
    if (result?.status !== 'conflict' || result.conflictId === undefined || item.op !== 'upsert' || !item.sent) return;
    const conflict = conflicts.find((c) => c.conflictId === result.conflictId);
    if (!conflict || sideOfAnswer(item, conflict) !== 'current') return;
    // What this device holds now of the fields it sent: the sent values, or later edits of them
    // still queued (a merge must keep those too). A record deleted here since is left to its delete.
    const local = state.records[item.type].get(item.uid);
    if (local === undefined) return;
    const mine = Object.fromEntries(Object.keys(item.sent.fields).map((k) => [k, local.fields[k] ?? null]));
    const outcome = settleStaleWrite(item.type, mine, item.base, fieldsOfWireRecord(item.type, conflict.loserSnapshot));
    if (outcome.kind === 'lost') return;
    if (outcome.kind === 'merge') writes.push(planPut(state, item.type, item.uid, outcome.patch));
    settled.push(result.conflictId);
  });
  return settled.length > 0 ? [...writes, { putMeta: { [META.settledConflicts]: [...settledConflicts(state), ...settled] } }] : writes;
}

/**
 * The conflicts a push answer's results name: those the answer lists, and those it does not (an
 * answer replayed from the server's receipts, after a lost one, lists only the conflicts that push
 * made), looked up one by one while unresolved. A lookup that fails leaves that conflict out: it
 * is then not settled here, and a person decides it as before.
 */
export async function conflictsOfAnswer(api: CalsyncApi, results: readonly WireItemResult[], listed: readonly WireConflict[]): Promise<WireConflict[]> {
  const out = [...listed];
  for (const r of results) {
    if (r.status !== 'conflict' || r.conflictId === undefined || out.some((c) => c.conflictId === r.conflictId)) continue;
    try {
      const found = (await api.conflicts(r.conflictId - 1, 1)).conflicts.find((c) => c.conflictId === r.conflictId);
      if (found) out.push(found);
    } catch {
      // Left to a person (see above).
    }
  }
  return out;
}

/**
 * Dismisses the settled conflicts on the server (the current version, which holds both devices'
 * edits, stays). One already resolved, by a person on another device, or gone, is done with too;
 * a failed request leaves the mark for the next round.
 */
export async function dismissSettled(state: LocalState, api: CalsyncApi): Promise<void> {
  for (const id of settledConflicts(state)) {
    try {
      await api.resolve(id, 'dismiss');
    } catch (error) {
      if (!(error instanceof ApiError && (error.status === 404 || error.status === 409))) throw error;
    }
    await state.commit({ putMeta: { [META.settledConflicts]: settledConflicts(state).filter((x) => x !== id) } });
  }
}
