import { listAbove, withSide, type ClientConflict } from '../engine/conflict-feed.js';
import type { LocalState } from '../engine/local-state.js';
import { settledConflicts } from '../engine/stale-writes.js';
import type { CalsyncApi } from '../http/api.js';
import type { SyncClient } from '../sync-client.js';

/** `client.conflicts`, and `emit` for the rounds to hand the conflicts they list to its listeners. */
export function conflictsPart(state: LocalState, api: CalsyncApi, requestRound: () => void): { readonly facade: SyncClient['conflicts']; emit(conflicts: readonly ClientConflict[]): void } {
  const listeners = new Set<(c: readonly ClientConflict[]) => void>();
  return {
    emit(conflicts) {
      for (const l of [...listeners]) l(conflicts);
    },
    facade: {
      async list() {
        const settled = settledConflicts(state);
        return (await listAbove(api, undefined)).filter((c) => !settled.has(c.conflictId)).map((c) => withSide(state, c));
      },
      async restore(conflictId) {
        const answer = await api.resolve(conflictId, 'restore');
        requestRound();
        return answer;
      },
      dismiss: (conflictId) => api.resolve(conflictId, 'dismiss'),
      subscribe(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
  };
}
