import { sql, type RawBuilder } from 'kysely';
import type { DataChange, SessionEnd } from '@calsync/domain';

/**
 * The NOTIFY channel of the schema in use: `calsync_changes_<schema>`, so databases shared by
 * several schemas (tests, staging) never hear each other. Both ends compute it in SQL from
 * `current_schema()`, so they agree whatever the search_path is.
 */
export const CHANNEL_SQL = `'calsync_changes_' || current_schema()`;

/** `pg_notify` of `payload` on this schema's channel (transactional: delivered at COMMIT, dropped on ROLLBACK). */
export function notifyQuery(payload: string): RawBuilder<unknown> {
  return sql`select pg_notify(${sql.raw(CHANNEL_SQL)}, cast(${payload} as text))`;
}

/** What travels in a NOTIFY payload (well under PostgreSQL's 8000-byte limit: uids are at most 128 characters). */
export type FeedMessage = { readonly kind: 'changed'; readonly change: DataChange } | { readonly kind: 'ended'; readonly end: SessionEnd };

/** Encodes a change as compact JSON (the version as a decimal string: it is a BIGINT). */
export function encodeChange(change: DataChange): string {
  return JSON.stringify({ u: change.userId, v: change.version.toString(), d: change.deviceUid });
}

/** Encodes a session end. */
export function encodeSessionEnd(end: SessionEnd): string {
  return JSON.stringify('sessionId' in end ? { e: 1, u: end.userId, s: end.sessionId } : { e: 1, u: end.userId, d: end.deviceUid });
}

/** Decodes a payload; null for anything this service did not write (another writer on the channel). */
export function decodePayload(text: string): FeedMessage | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (raw === null || typeof raw !== 'object') return null;
  const p = raw as Record<string, unknown>;
  if (!Number.isSafeInteger(p.u)) return null;
  const userId = p.u as number;
  if (p.e === 1) {
    if (typeof p.s === 'string') return { kind: 'ended', end: { userId, sessionId: p.s } };
    if (typeof p.d === 'string') return { kind: 'ended', end: { userId, deviceUid: p.d } };
    return null;
  }
  if (typeof p.v !== 'string' || !/^[0-9]{1,19}$/.test(p.v)) return null;
  if (p.d !== null && typeof p.d !== 'string') return null;
  return { kind: 'changed', change: { userId, version: BigInt(p.v), deviceUid: p.d } };
}
