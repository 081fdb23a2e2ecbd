import { ENTITY_TYPE, RECORD_TYPES, type RecordType } from '@calsync/domain/rules';
import type { CalsyncApi } from '../http/api.js';
import type { OutboxItem, StoreWrite } from '../store/local-store.js';
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
const written = (state: LocalState): Written => (state.meta.get(META.writtenVersions) ?? {}) as Written;
const sides = (state: LocalState): Sides => (state.meta.get(META.conflictSides) ?? {}) as Sides;

/**
 * What one push answer says about this device's writes: the versions it wrote (kept per record),
 * and for each conflict it made, whether its write is the current version (a stale edit applied
 * over a newer one: the newer one lost) or the loser (its item is the snapshot, e.g. an edit of a
 * record deleted meanwhile: the snapshot carries the item's baseVersion). A conflict marks the
 * feed due, so the round lists it with every other device's.
 */
export function planOwnWrites(state: LocalState, sent: readonly OutboxItem[], results: readonly WireItemResult[], conflicts: readonly WireConflict[]): StoreWrite {
  const nextWritten: Record<string, readonly string[]> = { ...written(state) };
  const nextSides: Record<string, 'current' | 'loser'> = { ...sides(state) };
  sent.forEach((item, i) => {
    const result = results[i];
    if (!result || result.status === 'error' || result.version === null) return;
    let side: 'current' | 'loser' = 'current';
    if (result.status === 'conflict') {
      const conflict = conflicts.find((c) => c.conflictId === result.conflictId);
      side = conflict && conflict.loserSnapshot.version === (item.sent?.baseVersion ?? null) ? 'loser' : 'current';
      if (result.conflictId !== undefined) nextSides[String(result.conflictId)] = side;
    }
    if (side === 'current') {
      const k = key(item.type, result.uid);
      nextWritten[k] = [...(nextWritten[k] ?? []), result.version].slice(-WRITTEN_KEPT);
    }
  });
  return { putMeta: { [META.writtenVersions]: nextWritten, [META.conflictSides]: nextSides, ...(conflicts.length > 0 ? { [META.conflictsDue]: true } : {}) } };
}

/** Whether this device's own push wrote `version` of the record (a pull that brings back only these needs no conflict listing). */
export function wroteVersion(state: LocalState, type: RecordType, uid: string, version: string): boolean {
  return written(state)[key(type, uid)]?.includes(version) ?? false;
}

/** The side this device wrote of `conflict`: decided when its own push made it, else read from the versions it wrote. */
export function sideOf(state: LocalState, conflict: WireConflict): ConflictSide {
  const decided = sides(state)[String(conflict.conflictId)];
  if (decided) return decided;
  const mineWritten = written(state)[key(TYPE_OF_ENTITY[conflict.entityType], conflict.entityUid)] ?? [];
  if (mineWritten.includes(conflict.winnerVersion)) return 'current';
  const loser = conflict.loserSnapshot.version;
  return loser !== null && mineWritten.includes(loser) ? 'loser' : null;
}

/** `conflict` with the side this device wrote. */
export const withSide = (state: LocalState, conflict: WireConflict): ClientConflict => ({ ...conflict, mine: sideOf(state, conflict) });

/**
 * Lists the conflicts made since the last listing (another device's push may have made one: a
 * pull that brought records marks the feed due), advances the mark, and returns them with sides.
 */
export async function fetchNewConflicts(state: LocalState, api: CalsyncApi): Promise<ClientConflict[]> {
  const found: WireConflict[] = [];
  const last = state.meta.get(META.conflictsAfterId);
  let afterId = typeof last === 'number' ? last : undefined;
  for (;;) {
    const page = await api.conflicts(afterId, 200);
    found.push(...page.conflicts);
    if (page.conflicts.length > 0) afterId = page.conflicts.at(-1)!.conflictId;
    if (!page.hasMore || page.nextAfterId === null) break;
    afterId = page.nextAfterId;
  }
  await state.commit({ putMeta: afterId === undefined ? {} : { [META.conflictsAfterId]: afterId }, deleteMeta: [META.conflictsDue] });
  return found.map((c) => withSide(state, c));
}
