import { sql, type RawBuilder } from 'kysely';
import type { DataChange, SessionEnd, UserAlert } from '@calsync/domain';

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

/** `pg_notify` of each payload in one statement (transactional, as `notifyQuery`). */
export function notifyAllQuery(payloads: readonly string[]): RawBuilder<unknown> {
  return sql`select pg_notify(${sql.raw(CHANNEL_SQL)}, p) from unnest(cast(${[...payloads]} as text[])) as n(p)`;
}

/** What travels in a NOTIFY payload (well under PostgreSQL's 8000-byte limit: uids are at most 128 characters). */
export type FeedMessage =
  | { readonly kind: 'changed'; readonly change: DataChange }
  | { readonly kind: 'ended'; readonly end: SessionEnd }
  | { readonly kind: 'alert'; readonly alert: UserAlert };

/** Encodes a change as compact JSON (the version as a decimal string: it is a BIGINT). */
export function encodeChange(change: DataChange): string {
  return JSON.stringify({ u: change.userId, v: change.version.toString(), d: change.deviceUid });
}

/** Encodes a session end. */
export function encodeSessionEnd(end: SessionEnd): string {
  return JSON.stringify('sessionId' in end ? { e: 1, u: end.userId, s: end.sessionId } : { e: 1, u: end.userId, d: end.deviceUid });
}

/** Encodes an alert (a reminder's title is at most 500 characters, so the payload stays far below 8000 bytes). */
export function encodeAlert(alert: UserAlert): string {
  const { userId, ...rest } = alert;
  return JSON.stringify({ a: 1, u: userId, x: rest });
}

const optionalText = (v: unknown): boolean => v === undefined || typeof v === 'string';

/** The alert in a decoded `{a:1}` payload, checked field by field; null when malformed. */
function decodeAlert(userId: number, x: unknown): UserAlert | null {
  if (x === null || typeof x !== 'object') return null;
  const a = x as Record<string, unknown>;
  if (a.kind === 'reminder') {
    const texts = [a.reminderUid, a.occurrenceStart, a.title, a.dueAt];
    if (texts.some((t) => typeof t !== 'string') || !optionalText(a.eventUid) || !optionalText(a.taskUid) || (a.start !== null && typeof a.start !== 'string')) return null;
    return {
      kind: 'reminder',
      userId,
      reminderUid: a.reminderUid as string,
      ...(typeof a.eventUid === 'string' ? { eventUid: a.eventUid } : {}),
      ...(typeof a.taskUid === 'string' ? { taskUid: a.taskUid } : {}),
      occurrenceStart: a.occurrenceStart as string,
      title: a.title as string,
      start: a.start as string | null,
      dueAt: a.dueAt as string,
    };
  }
  if (a.kind === 'conflict') {
    if (!Number.isSafeInteger(a.conflictId) || typeof a.entityType !== 'string' || typeof a.entityUid !== 'string') return null;
    if (a.deviceUid !== null && typeof a.deviceUid !== 'string') return null;
    return { kind: 'conflict', userId, deviceUid: a.deviceUid, conflictId: a.conflictId as number, entityType: a.entityType, entityUid: a.entityUid };
  }
  return null;
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
  if (p.a === 1) {
    const alert = decodeAlert(userId, p.x);
    return alert === null ? null : { kind: 'alert', alert };
  }
  if (p.e === 1) {
    if (typeof p.s === 'string') return { kind: 'ended', end: { userId, sessionId: p.s } };
    if (typeof p.d === 'string') return { kind: 'ended', end: { userId, deviceUid: p.d } };
    return null;
  }
  if (typeof p.v !== 'string' || !/^[0-9]{1,19}$/.test(p.v)) return null;
  if (p.d !== null && typeof p.d !== 'string') return null;
  return { kind: 'changed', change: { userId, version: BigInt(p.v), deviceUid: p.d } };
}
