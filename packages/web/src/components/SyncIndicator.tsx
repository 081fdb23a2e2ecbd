import type { SyncStatus } from '@calsync/client';
import { useEffect, useState } from 'react';
import { client } from '../client.js';
import { formatShortTime } from '../format.js';

interface FailedItem {
  readonly uid: string;
  readonly type?: string;
  readonly error?: { readonly code?: string; readonly message?: string } | string | null;
}

function errorText(item: FailedItem): string {
  if (!item.error) return 'failed';
  return typeof item.error === 'string' ? item.error : (item.error.message ?? item.error.code ?? 'failed');
}

/** The status region's main words: Offline / Syncing / n pending / Synced / n failed. */
export function statusText(status: SyncStatus): string {
  const parts: string[] = [];
  if (!status.online) parts.push('Offline');
  else if (status.syncing) parts.push('Syncing…');
  if (status.pending > 0) parts.push(`${status.pending} pending`);
  else if (status.online && !status.syncing && status.failed === 0) parts.push('Synced');
  if (status.failed > 0) parts.push(`${status.failed} failed`);
  return parts.join(' · ');
}

/** "Sync now": one round at once (the loop syncs by itself; this is for the impatient). */
export function SyncNowButton({ online }: { online: boolean }) {
  return (
    <button type="button" className="secondary small" onClick={() => void client.sync().catch(() => undefined)} disabled={!online}>
      Sync now
    </button>
  );
}

/**
 * The sync indicator: a live status region (online or offline, pending count, last sync; the last
 * sync time is left out of sight on a phone) and, when some items were parked as failed, their
 * errors with a retry button.
 */
export function SyncIndicator({ status }: { status: SyncStatus }) {
  const [failed, setFailed] = useState<FailedItem[]>([]);
  useEffect(() => {
    let current = true;
    void Promise.resolve(client.outbox.failed()).then((items) => {
      if (current) setFailed((items as FailedItem[] | undefined) ?? []);
    });
    return () => {
      current = false;
    };
  }, [status.failed, status.pending, status.lastSyncAt]);
  const state = !status.online ? 'offline' : status.pending > 0 || status.syncing ? 'pending' : status.failed > 0 ? 'failed' : 'synced';
  return (
    <div className="sync">
      <div role="status" aria-label="Sync status" className={`sync-status sync-${state}`}>
        <span className="dot" aria-hidden="true" />
        <span>{statusText(status)}</span>
        {status.lastSyncAt && <span className="sync-last"> · last sync {formatShortTime(status.lastSyncAt)}</span>}
      </div>
      {failed.length > 0 && (
        <details className="failed-items">
          <summary>Failed items ({failed.length})</summary>
          <ul>
            {failed.map((item) => (
              <li key={`${item.type ?? ''}:${item.uid}`}>
                <span>
                  {item.type ? `${item.type} ` : ''}
                  {item.uid}: {errorText(item)}
                </span>
                <button type="button" onClick={() => void client.outbox.retry(item.uid)} aria-label={`Retry ${item.uid}`}>
                  Retry
                </button>
              </li>
            ))}
          </ul>
          <button type="button" onClick={() => void client.outbox.retry()}>
            Retry all
          </button>
        </details>
      )}
    </div>
  );
}
