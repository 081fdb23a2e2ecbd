import { ENTITY_TYPE, RECORD_TYPES, type PushChangeset, type PushResponse, type RecordRow, type RecordType, type SyncApi, type SyncService } from '@calsync/domain';
import type { InMemorySyncStore } from '@calsync/testkit';
import { expect } from 'vitest';

/**
 * The engine behind the in-memory service, checked around every push: no acknowledged write is
 * lost (each applied item's fields are in the row, or, for an upsert on a tombstone, in the loser
 * snapshot; every live state a stale write replaced is kept as a loser snapshot), and a push
 * identical to one applied before (a re-push, a duplicated request) gets the same answer back.
 */
export class CheckingSyncApi implements SyncApi {
  readonly applied = new Map<string, unknown>();
  /** Pushed items applied, and replays answered from a receipt. */
  readonly counts = { applied: 0, replayed: 0 };
  /** Which device wrote each version (`type:uid:version`), from the answers to its pushes. */
  readonly writers = new Map<string, string>();
  /**
   * The devices on either side of each conflict a push made. The pusher wins, and the loser is the
   * writer of the live row it replaced, except for an edit of a record deleted meanwhile: there the
   * tombstone's writer wins and the pusher's edit is the loser (its snapshot carries the edit's
   * base version, which some other device may have written).
   */
  readonly conflictParties = new Map<number, { winner: string | undefined; loser: string | undefined }>();

  constructor(readonly svc: SyncService, readonly store: InMemorySyncStore) {}

  pull: SyncApi['pull'] = (u, q) => this.svc.pull(u, q);
  listConflicts: SyncApi['listConflicts'] = (u, q) => this.svc.listConflicts(u, q);
  resolveConflict: SyncApi['resolveConflict'] = (u, id, a) => this.svc.resolveConflict(u, id, a);
  newestVersion: SyncApi['newestVersion'] = (u) => this.svc.newestVersion(u);
  occurrences: SyncApi['occurrences'] = (u, q) => this.svc.occurrences(u, q);
  readObjects: SyncApi['readObjects'] = (u, s, r) => this.svc.readObjects(u, s, r);

  #rows(userId: number, type: RecordType): Map<string, RecordRow> {
    return new Map(this.store.snapshotRows(userId, type).map((r) => [r.uid, r]));
  }

  async push(userId: number, changeset: PushChangeset, deviceUid: string | null = null): Promise<PushResponse> {
    const before = Object.fromEntries(RECORD_TYPES.map((t) => [t, this.#rows(userId, t)])) as Record<RecordType, Map<string, RecordRow>>;
    const res = await this.svc.push(userId, changeset, deviceUid);
    const versionsBefore = new Set(RECORD_TYPES.flatMap((t) => [...before[t].values()].map((r) => `${t}:${r.uid}:${r.version}`)));
    for (const type of RECORD_TYPES) {
      for (const row of this.store.snapshotRows(userId, type)) {
        const key = `${type}:${row.uid}:${row.version}`;
        if (deviceUid !== null && !versionsBefore.has(key) && !this.writers.has(key)) this.writers.set(key, deviceUid);
      }
    }
    for (const c of res.conflicts) {
      const type = RECORD_TYPES.find((t) => ENTITY_TYPE[t] === c.entityType)!;
      const writer = (version: string | null) => (version === null ? undefined : this.writers.get(`${type}:${c.entityUid}:${version}`));
      const pusher = deviceUid ?? undefined;
      const existedBefore = versionsBefore.has(`${type}:${c.entityUid}:${c.winnerVersion}`);
      this.conflictParties.set(
        c.conflictId,
        existedBefore ? { winner: writer(c.winnerVersion), loser: pusher } : { winner: pusher, loser: writer(c.loserSnapshot.version ?? null) },
      );
    }
    for (const type of RECORD_TYPES) {
      const after = this.#rows(userId, type);
      (changeset[type] ?? []).forEach((item, i) => {
        const result = res[type][i]!;
        if (result.status === 'error') return;
        const key = JSON.stringify([userId, type, item.uid, item.op, item.baseVersion, item.fields]);
        const earlier = this.applied.get(key);
        if (earlier !== undefined) {
          expect(result, 'a replayed push answers as the first time').toEqual(earlier);
          this.counts.replayed += 1;
          return;
        }
        this.applied.set(key, result);
        this.counts.applied += 1;
        const prior = before[type].get(item.uid);
        if (result.uid !== item.uid) return; // merged default calendar: nothing applied, by design
        if (item.op === 'upsert' && result.status === 'created' && prior?.deleted === null) return; // base null on a live row: server copy wins
        const row = after.get(item.uid);
        const fresh = result.status === 'conflict' ? res.conflicts.find((c) => c.conflictId === result.conflictId) : undefined;
        const conflict = result.status === 'conflict' ? (fresh ?? this.store.snapshotConflicts(userId).find((c) => c.conflictId === result.conflictId)) : undefined;
        if (result.status === 'conflict') expect(conflict, 'conflict record exists').toBeDefined();
        // A live row that an earlier item of this push tombstoned (deleting its parent cascades):
        // the upsert meets a tombstone, so its edit is kept as the loser snapshot (docs/protocol.md).
        const tombstonedInPush = item.op === 'upsert' && result.status === 'conflict' && prior?.deleted === null && row !== undefined && row.deleted !== null;
        if (item.op === 'delete') {
          expect(row === undefined || row.deleted !== null).toBe(true);
        } else if (prior?.deleted != null || tombstonedInPush) {
          for (const [k, v] of Object.entries(item.fields)) expect(conflict!.loserSnapshot[k]).toEqual(v);
        } else if (row && row.version === BigInt(result.version!)) {
          for (const [k, v] of Object.entries(item.fields)) if (k !== 'isDefault') expect(row.fields[k], k).toEqual(v);
        }
        if (fresh && prior && prior.deleted === null && type !== 'calendars' && !tombstonedInPush) {
          expect(fresh.loserSnapshot.version).toBe(prior.version.toString());
          for (const [k, v] of Object.entries(prior.fields)) expect(fresh.loserSnapshot[k]).toEqual(v);
        }
      });
    }
    return res;
  }
}
