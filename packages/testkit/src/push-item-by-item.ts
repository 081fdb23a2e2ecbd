import { RECORD_TYPES, perRecordType, type ItemResult, type PushChangeset, type PushResponse, type SyncApi } from '@calsync/domain';

/**
 * The per-item semantics of a push, as a test oracle: each item pushed on its own (one unit of
 * work each), in push order (`RECORD_TYPES`), the answers joined. A push
 * of the whole changeset must give the same results and leave the same stored state.
 */
export async function pushItemByItem(sync: Pick<SyncApi, 'push'>, userId: number, changeset: PushChangeset, deviceUid: string | null = null): Promise<PushResponse> {
  const out: PushResponse = { ...perRecordType((): ItemResult[] => []), conflicts: [] };
  for (const type of RECORD_TYPES) {
    for (const item of changeset[type] ?? []) {
      const one = await sync.push(userId, { [type]: [item] }, deviceUid);
      out[type].push(...one[type]);
      out.conflicts.push(...one.conflicts);
    }
  }
  return out;
}

/** `sync` with every push made item by item through `pushItemByItem`; everything else unchanged. */
export function itemByItem(sync: SyncApi): SyncApi {
  return {
    push: (userId, changeset, deviceUid) => pushItemByItem(sync, userId, changeset, deviceUid ?? null),
    pull: (userId, query) => sync.pull(userId, query),
    ...(sync.pullEncoded === undefined ? {} : { pullEncoded: sync.pullEncoded.bind(sync) }),
    listConflicts: (userId, query) => sync.listConflicts(userId, query),
    resolveConflict: (userId, conflictId, action, deviceUid) => sync.resolveConflict(userId, conflictId, action, deviceUid),
    newestVersion: (userId) => sync.newestVersion(userId),
    occurrences: (userId, query) => sync.occurrences(userId, query),
    readObjects: (userId, scope, rootUids) => sync.readObjects(userId, scope, rootUids),
  };
}
