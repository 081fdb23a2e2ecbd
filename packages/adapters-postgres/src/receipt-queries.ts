import { sql, type RawBuilder } from 'kysely';
import pg from 'pg';
import { ENTITY_TYPE, type PushReceipt, type ReceiptKey } from '@calsync/domain';
import { recordTypeOfEntity } from './conflict-mapping.js';

/**
 * `from … r`: the user's receipts matching `keys` (three key arrays, one parameter each), one probe
 * of the full primary key (user_id, entity_type, uid, fingerprint) per key: the LIMIT 1 subquery
 * (the key is unique, so it changes no answer) cannot be flattened into a join that reads the
 * user's receipts by user_id alone, whatever plan the statement gets. Written once; the one-statement push
 * prefetch selects from it.
 */
export function matchingReceipts(userId: number, keys: readonly ReceiptKey[]): RawBuilder<unknown> {
  return sql`from unnest(cast(${keys.map((k) => ENTITY_TYPE[k.type])} as text[]), cast(${keys.map((k) => k.uid)} as text[]),
                cast(${keys.map((k) => k.fingerprint)} as text[])) as k(entity_type, uid, fingerprint)
    cross join lateral (select * from push_receipts p
      where p.user_id = ${userId} and p.entity_type = k.entity_type and p.uid = k.uid and p.fingerprint = k.fingerprint limit 1) as r`;
}

/** A stored receipt from its columns (entity type, uid, fingerprint, result). */
export function receiptFromSql(entityType: unknown, uid: unknown, fingerprint: unknown, result: unknown): PushReceipt {
  return { type: recordTypeOfEntity(String(entityType)), uid: String(uid), fingerprint: String(fingerprint), result };
}

/**
 * The INSERT of receipts as one plain text, the receipts inlined as one escaped JSON literal, so it
 * travels in the COMMIT message of a unit of work (no parameters, one round trip less per push). A
 * key that already exists is left as it is (its primary key decides). `userId` is a checked integer.
 */
export function saveReceiptsText(userId: number, receipts: readonly PushReceipt[]): string {
  if (!Number.isSafeInteger(userId)) throw new Error('userId must be an integer');
  const json = JSON.stringify(receipts.map((r) => ({ e: ENTITY_TYPE[r.type], u: r.uid, f: r.fingerprint, r: r.result })));
  return `insert into push_receipts (user_id, entity_type, uid, fingerprint, result)
    select ${userId}, k.e, k.u, k.f, k.r from jsonb_to_recordset(${pg.Client.prototype.escapeLiteral(json)}::jsonb) as k(e text, u text, f text, r jsonb)
    on conflict do nothing`;
}
