import { listAbove, reported, type ClientConflict } from '../engine/conflict-feed.js';
import type { LocalState } from '../engine/local-state.js';
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
        return reported(state, await listAbove(api, undefined));
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
