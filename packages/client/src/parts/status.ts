import { META, type LocalState } from '../engine/local-state.js';
import { ApiError } from '../http/api-error.js';
import type { SyncStatus } from '../status.js';

/** The status fields the local state decides: signed in, pending and parked items, last sync. */
export function statusOfState(state: LocalState, signedIn: boolean): Partial<SyncStatus> {
  const failed = state.outbox.filter((i) => i.state === 'failed').length;
  const last = state.meta.get(META.lastSyncAt);
  return { signedIn, pending: state.outbox.length - failed, failed, lastSyncAt: typeof last === 'string' ? last : null };
}

/**
 * The status fields a finished round decides: a network error means offline, any answer from the
 * server (an error envelope too) or a round that succeeded means online; the error as `lastError`.
 */
export function statusAfterRound(previous: SyncStatus, error: Error | null | undefined, ok: boolean): Partial<SyncStatus> {
  const offline = error instanceof ApiError && error.kind === 'network';
  return {
    syncing: false,
    online: offline ? false : error instanceof ApiError || ok ? true : previous.online,
    lastError: error ? { kind: error instanceof ApiError ? error.kind : 'local', code: error instanceof ApiError ? error.code : 'CLIENT_ERROR', message: error.message } : null,
  };
}
