import type { LocalState } from '../engine/local-state.js';
import { planRetry } from '../engine/outbox.js';
import type { SyncClient } from '../sync-client.js';

/** `client.outbox` and `client.isPending`: the local changes the server has not answered yet. */
export function outboxParts(state: LocalState, requestRound: () => void): Pick<SyncClient, 'outbox' | 'isPending'> {
  return {
    outbox: {
      failed: () =>
        state.outbox.filter((i) => i.state === 'failed').map((i) => ({ type: i.type, uid: i.uid, op: i.op, attempts: i.attempts, error: i.lastError })),
      pending: () => state.outbox.map((i) => ({ type: i.type, uid: i.uid, op: i.op, attempts: i.attempts, error: i.lastError, state: i.state })),
      async retry(uid) {
        await state.commit(planRetry(state, uid));
        requestRound();
      },
    },
    isPending: (type, uid) => state.outbox.some((i) => i.type === type && i.uid === uid),
  };
}
