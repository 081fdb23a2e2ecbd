import { sql, type RawBuilder } from 'kysely';
import type { RecordType } from '@calsync/domain';
import { recordSelectList, type SqlRecordRow } from './record-mapping.js';

/** `select <record columns> from <type> where user_id = $user and <condition> <tail>`: every record read is scoped by user. */
export function recordQuery(type: RecordType, userId: number, condition: RawBuilder<unknown>, tail: RawBuilder<unknown>): RawBuilder<SqlRecordRow> {
  return sql<SqlRecordRow>`select ${recordSelectList(type)} from ${sql.table(type)} where user_id = ${userId} and ${condition} ${tail}`;
}

/**
 * The pull query of one type: rows with after < version <= upTo, by version, at most `limit`.
 * Exported so the EXPLAIN script checks the very statement the store runs (it must use the
 * (user_id, version) index).
 */
export function readChangesQuery(type: RecordType, userId: number, afterVersion: bigint, upToVersion: bigint, limit: number): RawBuilder<SqlRecordRow> {
  return recordQuery(
    type,
    userId,
    sql`version > cast(${afterVersion.toString()} as bigint) and version <= cast(${upToVersion.toString()} as bigint)`,
    sql`order by version limit ${limit}::integer`,
  );
}
