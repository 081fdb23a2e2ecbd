import { ENTITY_TYPE, RECORD_TYPES, type RecordType } from '@calsync/domain/rules';
import type { CalsyncApi } from '../http/api.js';
import type { MetaValue, OutboxItem, StoreWrite } from '../store/local-store.js';
import type { WireConflict, WireItemResult } from '../wire.js';
import { META, type LocalState } from './local-state.js';

/** Which side of a conflict this device wrote: the record's current version, the losing one, or neither. */
export type ConflictSide = 'current' | 'loser' | null;
/** A conflict as the SDK hands it: the server's record plus the side this device wrote. */
export type ClientConflict = WireConflict & { readonly mine: ConflictSide };

/** Versions kept per record of what this device's own pushes wrote (enough to place a conflict's loser). */
const WRITTEN_KEPT = 8;
const TYPE_OF_ENTITY = Object.fromEntries(RECORD_TYPES.map((t) => [ENTITY_TYPE[t], t])) as Record<WireConflict['entityType'], RecordType>;
const key = (type: RecordType, uid: string): string => `${type}:${uid}`;

type Written = Readonly<Record<string, readonly string[]>>;
type Sides = Readonly<Record<string, 'current' | 'loser'>>;

/**
 * Each record's written versions, and each conflict's side, are a metadata entry of their own: a
 * push writes only the entries of its own items. (One map of every record once was copied and
 * stored whole at every push, so a push cost grew with all the records the device ever wrote.)
 * The one map an older client kept is still read, never rewritten: an entry of its own wins.
 */
const writtenKey = (type: RecordType, uid: string): string => `${META.writtenVersions}:${key(type, uid)}`;
const sideKey = (conflictId: number | string): string => `${META.conflictSides}:${conflictId}`;

/** The versions of the record this device's own pushes wrote, oldest first (at most WRITTEN_KEPT). */
function writtenOf(state: LocalState, type: RecordType, uid: string): readonly string[] {
  const own = state.meta.get(writtenKey(type, uid));
  if (Array.isArray(own)) return own as readonly string[];
  return ((state.meta.get(META.writtenVersions) ?? {}) as Written)[key(type, uid)] ?? [];
}

/** The side this device's own push made of the conflict, when it made it. */
function decidedSide(state: LocalState, conflictId: number): 'current' | 'loser' | undefined {
  const own = state.meta.get(sideKey(conflictId));
  if (own === 'current' || own === 'loser') return own;
  return ((state.meta.get(META.conflictSides) ?? {}) as Sides)[String(conflictId)];
}

/**
 * What one push answer says about this device's writes: the versions it wrote (kept per record),
 * and for each conflict it made, whether its write is the current version (a stale edit applied
 * over a newer one: the newer one lost) or the loser (its item is the snapshot, e.g. an edit of a
 * record deleted meanwhile: the snapshot carries the item's baseVersion). A conflict marks the
 * feed due, so the round lists it with every other device's.
 */
export function planOwnWrites(state: LocalState, sent: readonly OutboxItem[], results: readonly WireItemResult[], conflicts: readonly WireConflict[]): StoreWrite {
  const putMeta: Record<string, MetaValue> = {};
  sent.forEach((item, i) => {
    const result = results[i];
    if (!result || result.status === 'error' || result.version === null) return;
    let side: 'current' | 'loser' = 'current';
    if (result.status === 'conflict') {
      side = sideOfAnswer(item, conflicts.find((c) => c.conflictId === result.conflictId));
      if (result.conflictId !== undefined) putMeta[sideKey(result.conflictId)] = side;
    }
    if (side === 'current') {
      const k = writtenKey(item.type, result.uid);
      const before = (putMeta[k] as readonly string[] | undefined) ?? writtenOf(state, item.type, result.uid);
      putMeta[k] = [...before, result.version].slice(-WRITTEN_KEPT);
    }
  });
  if (conflicts.length > 0) putMeta[META.conflictsDue] = true;
  return { putMeta };
}

/**
 * The side this device's item took in a conflict its push made: the loser when the snapshot is the
 * version it was pushed against (its edit met a tombstone), else the current version (a stale edit
 * applied over a newer one, which lost).
 */
export function sideOfAnswer(item: OutboxItem, conflict: WireConflict | undefined): 'current' | 'loser' {
  return conflict && conflict.loserSnapshot.version === (item.sent?.baseVersion ?? null) ? 'loser' : 'current';
}

/** Whether this device's own push wrote `version` of the record (a pull that brings back only these needs no conflict listing). */
export function wroteVersion(state: LocalState, type: RecordType, uid: string, version: string): boolean {
  return writtenOf(state, type, uid).includes(version);
}

/** The side this device wrote of `conflict`: decided when its own push made it, else read from the versions it wrote. */
export function sideOf(state: LocalState, conflict: WireConflict): ConflictSide {
  const decided = decidedSide(state, conflict.conflictId);
  if (decided) return decided;
  const mineWritten = writtenOf(state, TYPE_OF_ENTITY[conflict.entityType], conflict.entityUid);
  if (mineWritten.includes(conflict.winnerVersion)) return 'current';
  const loser = conflict.loserSnapshot.version;
  return loser !== null && mineWritten.includes(loser) ? 'loser' : null;
}

/** `conflict` with the side this device wrote. */
export const withSide = (state: LocalState, conflict: WireConflict): ClientConflict => ({ ...conflict, mine: sideOf(state, conflict) });

/** The ids of conflicts marked settled and not dismissed yet (one small list, see META.settledConflicts). */
export function settledConflicts(state: LocalState): readonly number[] {
  const ids = state.meta.get(META.settledConflicts);
  return Array.isArray(ids) ? (ids as readonly number[]) : [];
}

/** The conflicts to report, with sides: those being settled (dismissed a moment later) left out. */
export function reported(state: LocalState, conflicts: readonly WireConflict[]): ClientConflict[] {
  const settled = new Set(settledConflicts(state));
  return conflicts.filter((c) => !settled.has(c.conflictId)).map((c) => withSide(state, c));
}

/**
 * Lists the conflicts made since the last listing (another device's push may have made one: a
 * pull that brought records marks the feed due), advances the mark, and returns them with sides.
 * A conflict another device's push made may be one that device settles a moment later (its edit
 * lost nothing, see stale-writes.ts): when one is among them, the listing is asked again after
 * `settleWaitMs`, so a settled one is never reported.
 */
export async function fetchNewConflicts(state: LocalState, api: CalsyncApi, settleWaitMs = 0): Promise<ClientConflict[]> {
  const last = state.meta.get(META.conflictsAfterId);
  const from = typeof last === 'number' ? last : undefined;
  let found = await listAbove(api, from);
  if (settleWaitMs > 0 && found.some((c) => decidedSide(state, c.conflictId) === undefined)) {
    await new Promise((resolve) => setTimeout(resolve, settleWaitMs));
    found = await listAbove(api, from);
  }
  const afterId = found.at(-1)?.conflictId ?? from;
  await state.commit({ putMeta: afterId === undefined ? {} : { [META.conflictsAfterId]: afterId }, deleteMeta: [META.conflictsDue] });
  return reported(state, found);
}

/** Every unresolved conflict above `afterId`, all pages. */
export async function listAbove(api: CalsyncApi, afterId: number | undefined): Promise<WireConflict[]> {
  const found: WireConflict[] = [];
  for (;;) {
    const page = await api.conflicts(afterId, 200);
    found.push(...page.conflicts);
    if (page.conflicts.length > 0) afterId = page.conflicts.at(-1)!.conflictId;
    if (!page.hasMore || page.nextAfterId === null) return found;
    afterId = page.nextAfterId;
  }
}
