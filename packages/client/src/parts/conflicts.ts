import { withSide, type ClientConflict } from '../engine/conflict-feed.js';
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
        const all: ClientConflict[] = [];
        let afterId: number | undefined;
        for (;;) {
          const page = await api.conflicts(afterId, 200);
          all.push(...page.conflicts.map((c) => withSide(state, c)));
          if (!page.hasMore || page.nextAfterId === null) return all;
          afterId = page.nextAfterId;
        }
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
