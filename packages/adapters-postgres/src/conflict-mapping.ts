import { sql } from 'kysely';
import { ENTITY_TYPE, RECORD_TYPES, type ConflictRecord, type RecordType, type WireRecord } from '@calsync/domain';
import { isoFromSql, isoOrNullFromSql } from './record-mapping.js';

/** The record type stored under an `entity_type` value (CALENDAR, EVENT, TASK, REMINDER). */
export function recordTypeOfEntity(entityType: string): RecordType {
  const type = RECORD_TYPES.find((t) => ENTITY_TYPE[t] === entityType);
  if (type === undefined) throw new Error(`unknown entity_type ${entityType}`);
  return type;
}

/** The `sync_conflicts` columns `conflictFromSql` reads. */
export const CONFLICT_COLUMNS = sql.raw('id, user_id, entity_type, entity_uid, winner_version, loser_snapshot, created_at, resolved_at');

/** Maps a `sync_conflicts` row (`CONFLICT_COLUMNS`) to the domain's `ConflictRecord`. */
export function conflictFromSql(raw: Readonly<Record<string, unknown>>): ConflictRecord {
  return {
    conflictId: Number(raw.id),
    userId: Number(raw.user_id),
    type: recordTypeOfEntity(String(raw.entity_type)),
    uid: String(raw.entity_uid),
    winnerVersion: BigInt(String(raw.winner_version)),
    loserSnapshot: raw.loser_snapshot as WireRecord,
    createdAt: isoFromSql(raw.created_at),
    resolvedAt: isoOrNullFromSql(raw.resolved_at),
  };
}
